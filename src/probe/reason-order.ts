import { REASONS, type ReasonCode, type Severity } from './reason-catalogue.ts';
import { label, type Reason } from './reason.ts';

const SEVERITY_ORDER: Record<Severity, number> = { unhealthy: 0, degraded: 1, info: 2 };
const CATALOGUE_ORDER = new Map(Object.keys(REASONS).map((code, i) => [code as ReasonCode, i]));

/**
 * The one order of a verdict's reasons, which the JSON, `?verbose`, the status page and the CLI all show
 * as it is: by severity; then what is wrong now before what the history says (a member down now before
 * the leader changes and flapping of the last minutes); then the catalogue's order (most telling first,
 * not alphabetical); then the member's label.
 */
export function reasonOrder(a: Reason, b: Reason): number {
  return (
    SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
    Number(REASONS[a.code].fromHistory === true) - Number(REASONS[b.code].fromHistory === true) ||
    (CATALOGUE_ORDER.get(a.code) ?? 0) - (CATALOGUE_ORDER.get(b.code) ?? 0) ||
    (a.member ? label(a.member) : '').localeCompare(b.member ? label(b.member) : '')
  );
}
