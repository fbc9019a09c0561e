/// Thrown when `SUBLEDGER_TEST_DATABASE_URL` is missing (after recording the test's failure).
public struct MissingTestDatabase: Error {
    public init() {}
}
