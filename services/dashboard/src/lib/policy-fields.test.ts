import { argumentPathOf, fieldHelp, originsOf, withField, withOrigins } from './policy-fields';

describe('data-flow fields of the policy editor', () => {
  it('has help for the counts and for any provenance.arguments.<path>, none for the other fields', () => {
    for (const f of ['provenance.tainted', 'provenance.instructed', 'session.untrustedInstructions'])
      expect(fieldHelp(f)?.kind).toBe('count');
    expect(fieldHelp('provenance.arguments.recipients.0')?.kind).toBe('origin');
    expect(fieldHelp('provenance.arguments.')?.kind).toBe('origin');
    expect(fieldHelp('tool.name')).toBeUndefined();
    expect(fieldHelp('arguments.recipient')).toBeUndefined();
  });

  it('reads the argument path after provenance.arguments.', () => {
    expect(argumentPathOf('provenance.arguments.recipient')).toBe('recipient');
    expect(argumentPathOf('provenance.arguments.event.participants.1')).toBe('event.participants.1');
    expect(argumentPathOf('provenance.arguments')).toBe('');
    expect(argumentPathOf('arguments.recipient')).toBeUndefined();
    expect(argumentPathOf('provenance.tainted')).toBeUndefined();
  });

  it('turns chosen origins into eq (one, when already eq) or in (in the editor order)', () => {
    expect(withOrigins('eq', ['tool'])).toEqual({ op: 'eq', value: 'tool' });
    expect(withOrigins('eq', ['both', 'tool'])).toEqual({ op: 'in', value: ['tool', 'both'] });
    expect(withOrigins('in', ['tool'])).toEqual({ op: 'in', value: ['tool'] });
    expect(withOrigins('in', [])).toEqual({ op: 'in', value: [] });
    expect(originsOf('eq', 'tool')).toEqual(['tool']);
    expect(originsOf('in', ['none', 'tool', 'elsewhere'])).toEqual(['tool', 'none']);
    expect(originsOf('regex', 'tool')).toEqual([]);
  });

  it('starts an empty condition moved to a data-flow field with a useful value, and keeps typed values', () => {
    const empty = { field: 'tool.name', op: 'eq', value: '' };
    expect(withField(empty, 'provenance.tainted')).toEqual({
      field: 'provenance.tainted',
      op: 'gte',
      value: 1,
    });
    expect(withField(empty, 'provenance.arguments.')).toEqual({
      field: 'provenance.arguments.',
      op: 'eq',
      value: 'tool',
    });
    // Typing the path keeps the chosen origins.
    const origin = { field: 'provenance.arguments.', op: 'in', value: ['tool', 'both'] };
    expect(withField(origin, 'provenance.arguments.to')).toEqual({
      ...origin,
      field: 'provenance.arguments.to',
    });
    const typed = { field: 'tool.name', op: 'eq', value: 'send_money' };
    expect(withField(typed, 'provenance.tainted')).toEqual({ ...typed, field: 'provenance.tainted' });
    expect(withField(empty, 'agent.key')).toEqual({ ...empty, field: 'agent.key' });
    // From an origin to a count: the origin is no count.
    expect(
      withField({ field: 'provenance.arguments.to', op: 'eq', value: 'tool' }, 'provenance.instructed'),
    ).toEqual({ field: 'provenance.instructed', op: 'gte', value: 1 });
  });
});
