package txfuzz.report;

/** One line of summary.json's findings list; the shape later work keeps. */
public record FindingRecord(String id, String oracle, String dbms, String isolation, String kind, String classification, String dir,
                            String summary) {
}
