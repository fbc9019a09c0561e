import PostgresLibPQ
import Testing

/// 300 statements at once on a pool of 3 connections, each caller reading back its own rows; one reply in ten spans
/// many socket reads (200 kB). Run through each way of sending a statement without the connection's thread.
enum ManyCallersScenario {
    static let statement = "SELECT $1::int8 * 3 AS tripled, repeat('x', $2::int) AS padding"

    /// Runs the scenario on `pool` (of 3 connections), `query` sending `statement` with an index and a width.
    static func run(
        on pool: PostgresPool, _ query: @escaping @Sendable (PostgresQuery) async throws -> PostgresRows
    ) async throws {
        let results = try await withThrowingTaskGroup(of: (Int64, Int64, Int).self) { group in
            for index in 0..<300 {
                group.addTask {
                    let width = index % 10 == 0 ? 200_000 : 10
                    let row = try await query(
                        PostgresQuery(
                            unsafeSQL: statement,
                            parameters: [Int64(index).postgresValue, Int64(width).postgresValue])
                    ).single()
                    return (Int64(index), try row.decode(Int64.self, at: 0), try row.decode(String.self, at: 1).count)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 300)
        for (index, tripled, width) in results {
            #expect(tripled == index * 3)
            #expect(width == (index % 10 == 0 ? 200_000 : 10))
        }
        #expect(pool.statistics.connectionsOpened <= 3)
        #expect(pool.statistics.inUse == 0)
    }
}
