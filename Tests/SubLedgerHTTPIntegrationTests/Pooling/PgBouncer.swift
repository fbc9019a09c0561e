import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A fresh database on the test cluster with its own PgBouncer (Debian's `pgbouncer`) in front of it, in
/// transaction mode with two server connections, listening on a Unix socket in a private directory.
///
/// `pooledURL` goes through PgBouncer, `directURL` to PostgreSQL itself. Both are removed after `body`.
struct PgBouncer: Sendable {
    let pooledURL: String
    let directURL: String
    let database: String
    let logFile: String

    /// Where Debian installs it, else the PATH.
    static func executable() throws -> String {
        let candidates = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"]
        if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) { return found }
        Issue.record("pgbouncer is not installed: apt-get install -y pgbouncer (see README.md)")
        throw MissingTestDatabase()
    }

    /// Runs `body` with a new database and a PgBouncer in front of it; `prepare` runs on the database (directly)
    /// before PgBouncer opens its first server connection.
    static func run<T: Sendable>(
        prepare: (PostgresPool) async throws -> Void = { _ in },
        _ body: (PgBouncer) async throws -> T
    ) async throws -> T {
        let executable = try executable()
        let test = try PostgresConfiguration(connectionString: TestDatabase.connectionString())
        let socketDirectory = try #require(test.host, "the test database must be reached over a Unix socket")
        let user = test.user ?? "postgres"
        let database = TestDatabase.uniqueName("pgbouncer")
        let admin = PostgresPool(configuration: test)
        try await admin.execute(script: "CREATE DATABASE \(database)")
        let directURL = "postgresql:///\(database)?host=\(socketDirectory)&port=\(test.port ?? "5432")&user=\(user)"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(TestDatabase.uniqueName("pgb"))
            .path
        var process: Process?
        do {
            let direct = PostgresPool(configuration: try PostgresConfiguration(connectionString: directURL))
            do {
                try await prepare(direct)
                await direct.shutdown()
            } catch {
                await direct.shutdown()
                throw error
            }
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
            // PgBouncer runs as the postgres user when the tests run as root (it refuses root).
            try Data("\"\(user)\" \"\"\n".utf8).write(to: URL(fileURLWithPath: directory + "/users.txt"))
            try Data(
                """
                [databases]
                subledger = host=\(socketDirectory) port=\(test.port ?? "5432") dbname=\(database) user=\(user)
                [pgbouncer]
                listen_addr =
                listen_port = 6432
                unix_socket_dir = \(directory)
                auth_type = trust
                auth_file = \(directory)/users.txt
                pool_mode = transaction
                default_pool_size = 2
                max_client_conn = 200
                logfile = \(directory)/pgbouncer.log
                pidfile = \(directory)/pgbouncer.pid

                """.utf8
            ).write(to: URL(fileURLWithPath: directory + "/pgbouncer.ini"))
            let launched = Process()
            if getuid() == 0 {
                launched.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
                launched.arguments = ["-u", "postgres", "--", executable, directory + "/pgbouncer.ini"]
            } else {
                launched.executableURL = URL(fileURLWithPath: executable)
                launched.arguments = [directory + "/pgbouncer.ini"]
            }
            launched.standardOutput = FileHandle.nullDevice
            launched.standardError = FileHandle.nullDevice
            try launched.run()
            process = launched
            let socket = directory + "/.s.PGSQL.6432"
            for _ in 0..<100 where !FileManager.default.fileExists(atPath: socket) {
                try await Task.sleep(for: .milliseconds(100))
            }
            try #require(FileManager.default.fileExists(atPath: socket), "pgbouncer did not start listening")
            let bouncer = PgBouncer(
                pooledURL: "postgresql:///subledger?host=\(directory)&port=6432&user=\(user)", directURL: directURL,
                database: database, logFile: directory + "/pgbouncer.log")
            let result = try await body(bouncer)
            await stop(process, directory: directory, database: database, admin: admin)
            return result
        } catch {
            await stop(process, directory: directory, database: database, admin: admin)
            throw error
        }
    }

    private static func stop(_ process: Process?, directory: String, database: String, admin: PostgresPool) async {
        if let process, process.isRunning {
            // runuser passes SIGTERM on to PgBouncer, which exits at once.
            process.terminate()
            for _ in 0..<50 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        }
        try? FileManager.default.removeItem(atPath: directory)
        _ = try? await admin.execute(script: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)")
        await admin.shutdown()
    }
}
