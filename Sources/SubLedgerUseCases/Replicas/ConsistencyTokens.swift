import PostgresLibPQ
import SubLedgerStore

/// The consistency tokens of read replicas (docs/guides/scale-out.md, "Read replicas"): a write's answer carries
/// the primary's position, and a read that presents one is answered by a standby that has replayed it.
public struct ConsistencyTokens: Sendable {
    /// A token: a position in the primary's write-ahead log, as its text travels in the header.
    public typealias Token = WALPosition

    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The token `text` states; nil when it is not one.
    public func token(_ text: String) -> Token? {
        WALPosition(text: text)
    }

    /// The primary's position now: the token a write's answer carries.
    public func primary() async throws -> Token {
        try await ReplicationPositions.primary(on: pool)
    }
}
