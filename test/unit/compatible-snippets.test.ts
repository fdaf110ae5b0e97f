import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { ROOT } from '../support/process.ts';
import { opsgenieReceiver, pagerdutyReceiver, receiversBlock } from '../../web/src/features/integrations/compatible-fns.ts';

// The integration page shows the receivers docs/senders.md documents, and test/system/vendor-senders.test.ts runs
// the documented text in a real Alertmanager: one text, so what a person copies from the page is what was run.
it('the integration page\'s Alertmanager receivers are the documented ones, values filled in', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/senders.md'), 'utf8');
  const block = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b?.includes('pagerduty_configs:'));
  const placeholders = { pagerdutyUrl: '$PAGERDUTY_URL', routingKey: '$ROUTING_KEY', opsgenieApiUrl: '$OPSGENIE_API_URL', genieKey: '$GENIE_KEY' };
  assert.equal(block, receiversBlock(pagerdutyReceiver(placeholders), opsgenieReceiver(placeholders)));
});
