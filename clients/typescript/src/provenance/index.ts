/** Provenance of a guarded call's arguments (docs/provenance.md). */
export { PROVENANCE_BOUNDS } from './bounds';
export { normalize, leafText, numberText } from './normal-form';
export { sourceText } from './source-text';
export { argumentLeaves, segmentsOf, type ArgumentLeaf } from './leaves';
export { SourceStore, type StoredSource, type StoreStats } from './source-store';
export { matchArguments, type ArgumentsProvenance } from './matcher';
export {
  ClientProvenance,
  DISABLED_PROVENANCE,
  createProvenanceTracker,
  type ProvenanceScope,
  type ProvenanceStats,
  type ProvenanceTracker,
  type ProvenanceTrackerOptions,
  type TrustedOptions,
  type UntrustedOrigin,
} from './tracker';
