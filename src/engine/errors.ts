/** The audit's own errors, in a module of their own: the faces test for them without loading the analyser. */

export class UnknownRuleError extends Error {
  constructor(readonly ids: string[]) {
    super(`unknown rule id(s): ${ids.join(', ')}`);
  }
}

export class AuditCancelled extends Error {
  constructor() {
    super('audit cancelled');
  }
}
