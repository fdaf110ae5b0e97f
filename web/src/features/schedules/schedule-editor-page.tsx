import { Link, useNavigate, useParams } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { RecordError } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { viewerZone } from '../../components/zone';
import { useCan } from '../auth/session';
import { formOf, newLayer } from './schedule-form';
import { ScheduleEditor } from './schedule-editor';
import { useCreateSchedule, useSchedule, useUpdateSchedule } from './schedules-api';

function NewSchedule() {
  const create = useCreateSchedule();
  const navigate = useNavigate();
  const canWrite = useCan('schedules:write');
  const zone = viewerZone();
  return (
    <Page title="New schedule">
      <ScheduleEditor initial={{ name: '', description: '', timezone: zone, handoffNotices: false, layers: [newLayer(1, zone, Date.now())] }} overrides={[]}
        saving={create.isPending} error={create.error} cancelTo="/oncall" submitLabel="Create schedule" readOnly={!canWrite}
        onSave={(body) => create.mutate(body, { onSuccess: (r) => navigate(`/oncall/${r.data.id}`) })} />
    </Page>
  );
}

function EditSchedule({ id }: { id: string }) {
  const q = useSchedule(id);
  const update = useUpdateSchedule(id);
  const navigate = useNavigate();
  const canWrite = useCan('schedules:write');
  if (q.isPending) return <Page title="Edit schedule"><Loading rows={6} /></Page>;
  if (q.error) {
    return (
      <Page title="Edit schedule">
        <RecordError error={q.error} missing={<EmptyState title="This schedule does not exist"><p>Go back to <Link to="/oncall">who is on call</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  const s = q.data.data;
  return (
    <Page title={`Edit ${s.name}`}>
      <ScheduleEditor initial={formOf(s)} overrides={s.overrides} saving={update.isPending} error={update.error} cancelTo={`/oncall/${id}`} submitLabel="Save schedule" readOnly={!canWrite}
        onSave={(body) => update.mutate(body, { onSuccess: () => navigate(`/oncall/${id}`) })} />
    </Page>
  );
}

export default function ScheduleEditorPage() {
  const { id } = useParams();
  return id ? <EditSchedule id={id} /> : <NewSchedule />;
}
