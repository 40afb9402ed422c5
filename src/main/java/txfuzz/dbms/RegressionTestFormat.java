package txfuzz.dbms;

/**
 * The form an engine's own test suite takes a concurrency test in, which a finding is also written in
 * (report/ renders each): an engine's description says which one its maintainers run.
 */
public enum RegressionTestFormat {
    /** PostgreSQL's isolation tester: a .spec file of setup, sessions and a permutation (src/test/isolation). */
    ISOLATION_TESTER_SPEC,
    /** The mysqltest language of mysql-test-run (MySQL, MariaDB): a .test file with connections and --send/--reap. */
    MYSQLTEST
}
