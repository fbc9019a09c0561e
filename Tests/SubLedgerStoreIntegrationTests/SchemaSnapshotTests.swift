import Foundation
import PostgresLibPQ
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `schema.sql` is the database the migrations make: a database migrated from empty by `Migrator` (what
/// `subledger migrate` runs), dumped by `scripts/schema-snapshot --dump`, is the checked-in file, line for line. A
/// migration added without running `scripts/schema-snapshot` fails here.
@Suite struct SchemaSnapshotTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func schemaSQLIsWhatTheMigrationsMake() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let dumped = try await Self.dump(url: try TestDatabase.connectionString())
            let snapshot = try String(contentsOf: Self.root.appendingPathComponent("schema.sql"), encoding: .utf8)
            let dumpedLines = dumped.split(separator: "\n", omittingEmptySubsequences: false)
            let snapshotLines = snapshot.split(separator: "\n", omittingEmptySubsequences: false)
            let firstDifference = zip(dumpedLines, snapshotLines).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(
                dumped == snapshot,
                """
                schema.sql differs from the migrated database (run scripts/schema-snapshot): \
                \(dumpedLines.count) lines dumped, \(snapshotLines.count) in the file, first difference at line \
                \((firstDifference?.offset).map { String($0 + 1) } ?? "the end"): \
                \(firstDifference.map { "dumped '\($0.element.0)', file '\($0.element.1)'" } ?? "")
                """)
        }
    }

    /// The script's normalized dump of the database at `url`.
    static func dump(url: String) async throws -> String {
        try await Task.detached {
            let process = Process()
            process.executableURL = root.appendingPathComponent("scripts/schema-snapshot")
            process.arguments = ["--dump", url]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "scripts/schema-snapshot --dump failed")
            return String(decoding: data, as: UTF8.self)
        }.value
    }
}
