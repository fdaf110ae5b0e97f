import { useCallback } from 'react';
import { Link, useParams } from 'react-router';
import type { Integration, Mapping } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { previewMapping, useIntegration, usePresets, useRejections, useUpdateIntegration } from './integrations-api';
import { MappingEditor, type Sample } from './mapping-editor';

function Editor({ integration, presetMapping, samples }: { integration: Integration; presetMapping: Mapping | null; samples: Sample[] }) {
  const update = useUpdateIntegration(integration.id);
  const preview = useCallback(
    async (payload: unknown, mapping: Mapping, signal: AbortSignal) => (await previewMapping(integration.id, payload, mapping, signal)).data,
    [integration.id],
  );
  return (
    <MappingEditor initial={integration.mapping ?? presetMapping} samples={samples} preview={preview}
      onSave={(mapping) => update.mutate({ mapping })} saving={update.isPending} saveError={update.error} saved={update.isSuccess} />
  );
}

export default function MappingPage() {
  const { id = '' } = useParams();
  const integration = useIntegration(id);
  const presets = usePresets();
  const rejections = useRejections(id);
  const title = integration.data ? `Field mappings: ${integration.data.data.name}` : 'Field mappings';
  const error = integration.error ?? presets.error;
  if (error) return <Page title={title}><ErrorDisplay error={error} /></Page>;
  if (!integration.data || !presets.data || rejections.isPending) return <Page title={title}><Loading rows={10} /></Page>;
  const i = integration.data.data;
  const preset = presets.data.data.find((p) => p.name === i.preset);
  const samples: Sample[] = [
    ...(preset ? [{ label: `${preset.title} sample`, text: JSON.stringify(preset.sample, null, 2) }] : []),
    ...(rejections.data?.data ?? []).filter((r) => r.payload).slice(0, 5).map((r, n) => ({ label: `Rejected payload ${n + 1}`, text: r.payload as string })),
  ];
  return (
    <Page title={title} actions={<Link className="button secondary" to={`/integrations/${i.id}`}>Back to the integration</Link>}>
      <p className="muted">How a payload from {i.name} becomes alerts. Try it on a sample before saving; saving applies to the next payload.</p>
      <Editor integration={i} presetMapping={preset?.mapping ?? null} samples={samples} />
    </Page>
  );
}
