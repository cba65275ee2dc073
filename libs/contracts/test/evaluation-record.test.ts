import {
  GuardDecision,
  GuardRequest,
  evaluationRecord,
  evaluationRow,
  guardDecision,
  guardInput,
  type EvaluationOutcome,
} from '../src';

const request = GuardRequest.parse({
  agentId: '0193a5f0-0000-7000-8000-000000000001',
  sessionId: '0193a5f0-0000-7000-8000-000000000002',
  mode: 'enforce',
  action: { type: 'tool_call', name: 'payments' },
  riskLevel: 'high',
  arguments: { amount: 5000 },
});
const outcome: EvaluationOutcome & { approval: unknown } = {
  policyDecision: 'require_approval',
  effectiveDecision: 'require_approval',
  matchedGuardrails: [{ policyId: 'p', name: 'big', version: 3, decision: 'require_approval', reason: 'r' }],
  wouldBlock: false,
  wouldRequireApproval: true,
  approval: { timeoutSeconds: 60 }, // an engine result carries more; it is not copied
};
const input = guardInput(request);
const record = evaluationRecord({
  evaluationId: 'e-1',
  projectId: 'proj',
  request,
  input,
  outcome,
  approvalId: 'ap-1',
  evaluatedAt: '2026-11-24T10:00:00.000Z',
});

describe('evaluation builder', () => {
  test('the record takes the ids and flags of the request (absent → null) and only the outcome fields', () => {
    expect(input).toEqual({
      action: { type: 'tool_call', name: 'payments' },
      riskLevel: 'high',
      arguments: { amount: 5000 },
    });
    expect(record).toEqual({
      evaluationId: 'e-1',
      projectId: 'proj',
      agentId: request.agentId,
      agentVersionId: null,
      sessionId: '0193a5f0-0000-7000-8000-000000000002',
      runId: null,
      toolCallId: null,
      mode: 'enforce',
      policyDecision: 'require_approval',
      effectiveDecision: 'require_approval',
      matchedGuardrails: outcome.matchedGuardrails,
      wouldBlock: false,
      wouldRequireApproval: true,
      dryRun: false,
      approvalId: 'ap-1',
      input,
      provenance: null,
      evaluatedAt: '2026-11-24T10:00:00.000Z',
    });
  });

  test('the record and the row carry the provenance as validated; without one the row leaves the column out', () => {
    const withProvenance = GuardRequest.parse({
      ...request,
      provenance: {
        arguments: [{ path: 'amount', origin: 'tool', tainted: true, sources: [{ toolName: 'read_file' }] }],
      },
    });
    const r = evaluationRecord({
      evaluationId: 'e-2',
      projectId: 'proj',
      request: withProvenance,
      input: guardInput(withProvenance),
      outcome,
      approvalId: null,
      evaluatedAt: '2026-11-24T10:00:00.000Z',
    });
    const stored = {
      arguments: [
        {
          path: 'amount',
          origin: 'tool',
          tainted: true,
          instructed: false,
          sources: [{ toolName: 'read_file', instructions: false }],
        },
      ],
      session: { untrustedInstructions: 0 },
      truncated: false,
    };
    expect(r.provenance).toEqual(stored);
    expect(r.input).not.toHaveProperty('provenance');
    expect(evaluationRow(r).provenance).toEqual(stored);
    expect('provenance' in evaluationRow(record)).toBe(false);
    const { provenance: _absent, ...older } = record; // a record of an older gateway
    expect('provenance' in evaluationRow(older)).toBe(false);
  });

  test('the decision is the record as the guard check answers it, with the approval when there is one', () => {
    const approval = { id: 'ap-1', status: 'pending' as const, expiresAt: '2026-11-24T10:01:00.000Z' };
    const d = guardDecision(record, approval);
    expect(GuardDecision.parse(d)).toEqual(d);
    expect(d).toMatchObject({ evaluationId: 'e-1', policyDecision: 'require_approval', approval });
    expect('approval' in guardDecision(record)).toBe(false);
  });

  test('the row names the tool (else the action) and holds the time as a Date', () => {
    const row = evaluationRow(record);
    expect(row).toMatchObject({ id: 'e-1', toolName: 'payments', approvalId: 'ap-1', input });
    expect(row.evaluatedAt).toEqual(new Date('2026-11-24T10:00:00.000Z'));
    expect(
      evaluationRow({ ...record, input: { tool: { name: 'bash' }, action: { name: 'x' } } }).toolName,
    ).toBe('bash');
    expect(evaluationRow({ ...record, input: {} }).toolName).toBeNull();
  });
});
