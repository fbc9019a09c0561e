import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

@Suite struct EmbeddedPostgresTests {
    /// The embedded cluster is created on first start, answers on its Unix socket, keeps its data across a
    /// stop and a second start, and is stopped by the process that started it.
    @Test func createsStartsReusesAndStopsAPrivateCluster() async throws {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("subledger-embedded-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        if geteuid() == 0 {
            // The unprivileged user must be able to enter the folder's parents; /tmp allows that.
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        }

        let first = try await DatabaseBootstrap.open(
            url: nil, dataDirectory: root, poolSize: 2, logger: TestDatabase.logger)
        #expect(first.embedded?.startedHere == true)
        try await first.pool.execute(
            script: "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('掉单 never again')")
        let database = try await first.pool.query("SELECT current_database()").single().decode(String.self, at: 0)
        #expect(database == "subledger")
        await first.close()
        #expect(FileManager.default.fileExists(atPath: root + "/postgres/data/postmaster.pid") == false)

        let second = try await DatabaseBootstrap.open(
            url: nil, dataDirectory: root, poolSize: 2, logger: TestDatabase.logger)
        let note = try await second.pool.query("SELECT note FROM kept").single().decode(String.self, at: 0)
        #expect(note == "掉单 never again")
        await second.close()
    }

    @Test func longFoldersGetTheirSocketUnderTmp() {
        let short = "/work/app/.subledger/postgres"
        #expect(EmbeddedPostgres.socketDirectory(for: short) == short)
        let long = "/" + String(repeating: "deep/", count: 30) + ".subledger/postgres"
        let socket = EmbeddedPostgres.socketDirectory(for: long)
        #expect(socket.hasPrefix("/tmp/subledger-"))
        #expect(socket == EmbeddedPostgres.socketDirectory(for: long))
    }
}
