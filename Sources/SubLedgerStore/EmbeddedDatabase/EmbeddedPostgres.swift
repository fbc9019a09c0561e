import Foundation
import Logging

/// A private PostgreSQL cluster under `.subledger/postgres`, used when no `DATABASE_URL` is configured.
///
/// The cluster listens on a Unix socket only, is created on first use (`initdb`), reused on later starts,
/// and stopped by `stop()` when this process started it. PostgreSQL refuses to run as root, so when
/// SubLedger runs as root the server programs run as an unprivileged system user (Debian's `postgres`)
/// on directories that user owns.
public struct EmbeddedPostgres: Sendable {
    /// Where and how the cluster lives.
    public struct Configuration: Sendable {
        /// The cluster's folder: `data/`, the server log and (when the path is short enough) the socket.
        /// Default `.subledger/postgres` under the current directory.
        public var rootDirectory: String
        /// The database SubLedger uses inside the cluster. Default `subledger`.
        public var databaseName: String
        /// The unprivileged user that runs PostgreSQL when this process is root. Default `postgres`.
        public var systemUser: String
        /// Extra folders searched for `initdb`/`pg_ctl` before `PATH` and `/usr/lib/postgresql/*/bin`.
        public var binarySearchPaths: [String]

        public init(
            rootDirectory: String = ".subledger/postgres",
            databaseName: String = "subledger",
            systemUser: String = "postgres",
            binarySearchPaths: [String] = []
        ) {
            self.rootDirectory = rootDirectory
            self.databaseName = databaseName
            self.systemUser = systemUser
            self.binarySearchPaths = binarySearchPaths
        }
    }

    public var configuration: Configuration
    let logger: Logger

    public init(configuration: Configuration = .init(), logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Creates the cluster if needed and starts it (or finds it already running).
    public func start() throws -> RunningEmbeddedPostgres {
        let programs = try PostgresPrograms.locate(extraPaths: configuration.binarySearchPaths)
        let root = URL(fileURLWithPath: configuration.rootDirectory).standardizedFileURL.path
        let dataDirectory = root + "/data"
        let socketDirectory = Self.socketDirectory(for: root)
        let runner = try ProgramRunner(systemUser: configuration.systemUser)

        try runner.prepareDirectory(root)
        if socketDirectory != root { try runner.prepareDirectory(socketDirectory) }

        let versionFile = dataDirectory + "/PG_VERSION"
        if FileManager.default.fileExists(atPath: versionFile) {
            let existing =
                (try? String(contentsOfFile: versionFile, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            if existing != programs.majorVersion {
                throw EmbeddedPostgresError(
                    "the cluster in \(dataDirectory) was created by PostgreSQL \(existing), but the programs found "
                        + "are version \(programs.majorVersion) (\(programs.directory)); point PATH at version "
                        + "\(existing)'s bin folder, or move the folder away to start afresh")
            }
        } else {
            logger.info("creating the embedded PostgreSQL cluster", metadata: ["directory": "\(dataDirectory)"])
            try runner.run(
                programs.initdb,
                ["-D", dataDirectory, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C"],
                logFile: root + "/initdb.log",
                failure: "initdb failed")
        }

        var startedHere = false
        let status = try runner.run(programs.pgCtl, ["status", "-D", dataDirectory], logFile: nil, failure: nil)
        if status != 0 {
            let options = "-c listen_addresses='' -k '\(socketDirectory)'"
            try runner.run(
                programs.pgCtl,
                ["start", "-w", "-t", "60", "-D", dataDirectory, "-l", root + "/postgres.log", "-o", options],
                logFile: root + "/pg_ctl.log",
                failure: "pg_ctl start failed (the server log is \(root)/postgres.log)")
            startedHere = true
            logger.info("started the embedded PostgreSQL cluster", metadata: ["socket": "\(socketDirectory)"])
        } else {
            logger.info("reusing the running embedded PostgreSQL cluster", metadata: ["socket": "\(socketDirectory)"])
        }
        return RunningEmbeddedPostgres(
            socketDirectory: socketDirectory,
            databaseName: configuration.databaseName,
            dataDirectory: dataDirectory,
            pgCtl: programs.pgCtl,
            runner: runner,
            startedHere: startedHere,
            logger: logger)
    }

    /// Unix socket paths are limited to ~107 bytes; a deep project folder gets its socket under /tmp.
    static func socketDirectory(for root: String) -> String {
        if root.utf8.count + "/.s.PGSQL.5432".utf8.count < 100 { return root }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in root.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return "/tmp/subledger-" + String(hash, radix: 16)
    }
}
