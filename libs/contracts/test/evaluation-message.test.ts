import { CloudEventRecord, EVALUATION_RECORDED_TYPE, evaluationMessage, type EvaluationRecord } from '../src';

const record: EvaluationRecord = {
  evaluationId: '01JEVAL000000000000000001',
  projectId: 'p-1',
  agentId: 'a-1',
  agentVersionId: null,
  sessionId: 's-1',
  runId: 'r-1',
  toolCallId: null,
  mode: 'enforce',
  policyDecision: 'block',
  effectiveDecision: 'block',
  matchedGuardrails: [{ policyId: 'pol-1', name: 'no wipes', version: 2, decision: 'block', reason: 'x' }],
  wouldBlock: true,
  wouldRequireApproval: false,
  dryRun: false,
  approvalId: null,
  input: { tool: { name: 'bash' }, arguments: { command: 'rm -rf /' } },
  evaluatedAt: '2026-11-21T22:00:00.000Z',
};

describe('evaluationMessage', () => {
  test('is a CloudEvents 1.0 record keyed by the evaluation, with the session and run as attributes', () => {
    const m = evaluationMessage(record);
    expect(m.key).toBe(record.evaluationId);
    expect(CloudEventRecord.parse(m.value)).toMatchObject({
      specversion: '1.0',
      id: record.evaluationId,
      type: EVALUATION_RECORDED_TYPE,
      source: '/projects/p-1/agents/a-1',
      time: record.evaluatedAt,
      projectid: 'p-1',
      agentid: 'a-1',
      sessionid: 's-1',
      subject: 'r-1',
    });
    expect(m.value.data).toEqual(record);
  });

  test('leaves sessionid and subject out when the evaluation has no session or run', () => {
    const m = evaluationMessage({ ...record, sessionId: null, runId: null });
    expect(m.value).not.toHaveProperty('sessionid');
    expect(m.value).not.toHaveProperty('subject');
  });
});
