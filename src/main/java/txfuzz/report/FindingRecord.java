package txfuzz.report;

/**
 * One line of summary.json's findings list: one per violation. The first eight fields are the
 * original shape; the rest describe the finding (the folder) the violation belongs to, and are the
 * same on every line of that finding.
 *
 * @param primary       this violation is the one the finding is about: its title, its signature, the one reduction kept
 * @param signature     the finding's signature id (see {@link Signature#id()}); null where none was computed
 * @param signatureText the readable form of the signature
 * @param duplicateOf   id of the earlier finding with the same signature (or one whose reduced signature this case covers); null when unique
 * @param reduction     how the finding's case was reduced; null where reduction does not apply (e.g. {@code txfuzz check})
 * @param onNewest      for a bug candidate found on an older release, what the newest release did with its case; else null
 */
public record FindingRecord(String id, String oracle, String dbms, String isolation, String kind, String classification, String dir,
                            String summary, boolean primary, String signature, String signatureText, String duplicateOf,
                            ReductionRecord reduction, OnNewestRelease onNewest) {

    public FindingRecord(String id, String oracle, String dbms, String isolation, String kind, String classification, String dir,
                         String summary) {
        this(id, oracle, dbms, isolation, kind, classification, dir, summary, true, null, null, null, null, null);
    }

    public FindingRecord withFinding(boolean primary, Signature sig, String duplicateOf, ReductionRecord reduction) {
        return new FindingRecord(id, oracle, dbms, isolation, kind, classification, dir, summary, primary, sig == null ? null : sig.id(),
                sig == null ? null : sig.text(), duplicateOf, reduction, onNewest);
    }

    public FindingRecord withOnNewest(OnNewestRelease n) {
        return new FindingRecord(id, oracle, dbms, isolation, kind, classification, dir, summary, primary, signature, signatureText, duplicateOf,
                reduction, n);
    }
}
