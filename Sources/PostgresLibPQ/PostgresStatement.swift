/// The text of a `PostgresQuery` run through a connection's prepared-statement cache.
struct PostgresStatement: Sendable, Hashable {
    /// The statement's SQL, with `$1…` placeholders.
    let sql: String

    init(_ sql: String) {
        self.sql = sql
    }
}

/// The per-connection map from statement text to server-side prepared statement name.
///
/// Bounded: once full, further statements run unnamed rather than evicting, because DEALLOCATE fails
/// inside an aborted transaction and would make eviction itself a source of errors.
struct StatementCache {
    struct Key: Hashable {
        let sql: String
        let parameterTypes: [PostgresDataType]
    }

    static let capacity = 256

    private var names: [Key: String] = [:]
    private var nextNumber = 1

    func name(for key: Key) -> String? {
        names[key]
    }

    /// A fresh statement name, or nil when the cache is full.
    mutating func reserveName(for key: Key) -> String? {
        guard names.count < Self.capacity else { return nil }
        defer { nextNumber += 1 }
        return "postgreslibpq_\(nextNumber)"
    }

    mutating func insert(_ key: Key, name: String) {
        names[key] = name
    }

    mutating func remove(_ key: Key) {
        names[key] = nil
    }
}
