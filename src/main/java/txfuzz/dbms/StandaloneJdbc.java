package txfuzz.dbms;

/**
 * How a program outside txfuzz (a finding's {@code Repro.java}) opens a private database of an
 * in-process engine with the settings txfuzz's target uses, with nothing but the engine's JDBC jar.
 *
 * @param url             JDBC URL; {@code {tmp}} stands for a fresh temporary directory
 * @param user            null: connect without credentials
 * @param password        with {@code user}
 * @param sqlTransactions BEGIN/COMMIT/ROLLBACK are sent as SQL (as txfuzz's target does on this engine), else through JDBC autocommit
 * @param duplicate       every session is {@code duplicate()} of the first connection (DuckDB: one in-memory instance per URL open)
 */
public record StandaloneJdbc(String url, String user, String password, boolean sqlTransactions, boolean duplicate) {
}
