import { ApiError } from '../../api/client';
import { fieldErrors, SelectField, TextField } from '../../components/form';
import { listText, ParsedInput } from './parsed-input';
import { blankLeaf, convert, kindOf, OPS, valueFor, type Condition, type ConditionKind, type Leaf, type Op } from './workflow-fns';

/** Conditions nest at most this deep counting the leaves (the API's limit): no group is offered below it. */
const MAX_DEPTH = 4;

const KINDS: { value: ConditionKind; label: string }[] = [
  { value: 'all', label: 'All of' },
  { value: 'any', label: 'Any of' },
  { value: 'not', label: 'Not' },
  { value: 'leaf', label: 'Condition' },
];

/** The API's messages for exactly `path` (a group's own problems; its members show theirs). */
function ownErrors(error: unknown, path: string): string[] {
  return error instanceof ApiError ? error.details.filter((d) => d.path === `/${path}`).map((d) => d.message) : [];
}

interface NodeProps {
  value: Condition;
  onChange: (c: Condition) => void;
  onRemove: () => void;
  /** The node's JSON pointer under the body, without the leading slash (`conditions/all/1`): errors are found by it. */
  path: string;
  depth: number;
  error: unknown;
  fieldsListId: string;
}

function LeafEditor({ leaf, onChange, path, error, fieldsListId }: { leaf: Leaf; onChange: (l: Leaf) => void; path: string; error: unknown; fieldsListId: string }) {
  const value = leaf.value;
  return (
    <div className="leaf-fields">
      <TextField label="Field" value={leaf.field} list={fieldsListId} placeholder="labels.env" onChange={(e) => onChange({ ...leaf, field: e.target.value })}
        errors={fieldErrors(error, `${path}/field`)} />
      <SelectField label="Operator" value={leaf.op} errors={fieldErrors(error, `${path}/op`)}
        onChange={(e) => { const op = e.target.value as Op; onChange({ ...leaf, op, value: valueFor(op, value) }); }}>
        {OPS.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </SelectField>
      {leaf.op === 'exists' ? (
        <SelectField label="Value" value={value === false ? 'absent' : 'present'} errors={fieldErrors(error, `${path}/value`)}
          onChange={(e) => onChange({ ...leaf, value: e.target.value === 'present' })}>
          <option value="present">is present</option>
          <option value="absent">is absent</option>
        </SelectField>
      ) : leaf.op === 'in' || leaf.op === 'nin' ? (
        <ParsedInput label="Values" hint="Comma-separated." value={Array.isArray(value) ? value : []} {...listText}
          onChange={(v) => onChange({ ...leaf, value: v })} errors={fieldErrors(error, `${path}/value`)} />
      ) : (
        <TextField label="Value" value={typeof value === 'string' ? value : ''} onChange={(e) => onChange({ ...leaf, value: e.target.value })}
          errors={fieldErrors(error, `${path}/value`)} />
      )}
    </div>
  );
}

/** One condition of the tree: a leaf, or a group (all / any) of conditions, or a not. */
export function ConditionNode({ value, onChange, onRemove, path, depth, error, fieldsListId }: NodeProps) {
  const kind = kindOf(value);
  const nest = depth < MAX_DEPTH - 1;
  const groupKey = kind === 'any' ? 'any' : 'all';
  const members = 'all' in value ? value.all : 'any' in value ? value.any : [];
  const setMembers = (next: Condition[]) => onChange(groupKey === 'all' ? { all: next } : { any: next });
  const child = (c: Condition, at: string, set: (c: Condition) => void, remove: () => void) => (
    <ConditionNode value={c} onChange={set} onRemove={remove} path={`${path}/${at}`} depth={depth + 1} error={error} fieldsListId={fieldsListId} />
  );
  return (
    <div className={`cond cond-${kind}`} data-testid="condition">
      <div className="cond-head">
        <SelectField label="Kind" value={kind} onChange={(e) => onChange(convert(value, e.target.value as ConditionKind))}>
          {KINDS.filter((k) => k.value === 'leaf' || k.value === kind || nest).map((k) => <option key={k.value} value={k.value}>{k.label}</option>)}
        </SelectField>
        <button type="button" className="secondary small" onClick={onRemove}>Remove</button>
      </div>
      {ownErrors(error, path).map((m) => <p key={m} className="field-errors" role="alert">{m}</p>)}
      {'all' in value || 'any' in value ? (
        <>
          <ol className="cond-members">
            {members.map((c, i) => (
              <li key={i}>
                {child(c, `${groupKey}/${i}`, (n) => setMembers(members.map((x, j) => (j === i ? n : x))), () => setMembers(members.filter((_, j) => j !== i)))}
              </li>
            ))}
          </ol>
          <div className="actions start">
            <button type="button" className="secondary small" onClick={() => setMembers([...members, blankLeaf()])}>Add condition</button>
            {nest && <button type="button" className="secondary small" onClick={() => setMembers([...members, { any: [blankLeaf()] }])}>Add group</button>}
          </div>
        </>
      ) : 'not' in value ? (
        child(value.not, 'not', (n) => onChange({ not: n }), () => onChange(blankLeaf()))
      ) : (
        <LeafEditor leaf={value} onChange={onChange} path={path} error={error} fieldsListId={fieldsListId} />
      )}
    </div>
  );
}

/** The whole conditions: none (every alert matches) or a tree. */
export function ConditionsEditor({ value, onChange, error, fields }: { value: Condition | null; onChange: (c: Condition | null) => void; error: unknown; fields: string[] }) {
  const listId = 'condition-fields';
  return (
    <div className="conditions">
      <datalist id={listId}>{fields.map((f) => <option key={f} value={f} />)}</datalist>
      {value === null ? (
        <div className="actions start">
          <p className="muted">No conditions: every alert of the trigger matches.</p>
          <button type="button" className="secondary small" onClick={() => onChange({ all: [blankLeaf()] })}>Add a condition</button>
        </div>
      ) : (
        <ConditionNode value={value} onChange={onChange} onRemove={() => onChange(null)} path="conditions" depth={0} error={error} fieldsListId={listId} />
      )}
    </div>
  );
}
