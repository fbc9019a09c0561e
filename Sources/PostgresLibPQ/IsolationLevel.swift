/// A transaction isolation level for `BEGIN ISOLATION LEVEL …`.
public enum IsolationLevel: String, Sendable, Hashable, CaseIterable {
    /// Each statement sees data committed before it began (PostgreSQL's default).
    case readCommitted = "READ COMMITTED"
    /// All statements see one snapshot; concurrent updates to the same rows fail with 40001.
    case repeatableRead = "REPEATABLE READ"
    /// As if transactions ran one at a time; conflicts fail with 40001 and must be retried.
    case serializable = "SERIALIZABLE"
}
