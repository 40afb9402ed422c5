package txfuzz.dbms;

/**
 * The promise one of an engine's levels keeps, and the manual page that says so.
 *
 * @param promise what the level keeps
 * @param manual  the manual's page for it
 */
public record LevelPromise(Promise promise, String manual) {
}
