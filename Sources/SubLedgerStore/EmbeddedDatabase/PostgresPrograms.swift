import Foundation

/// The PostgreSQL server programs the embedded cluster needs, found on this machine.
struct PostgresPrograms: Sendable {
    var directory: String
    var initdb: String
    var pgCtl: String
    /// The major version (`15`), compared with a cluster's `PG_VERSION`.
    var majorVersion: String

    /// Searches `extraPaths`, then `PATH`, then `/usr/lib/postgresql/*/bin` (newest version first).
    static func locate(extraPaths: [String]) throws -> PostgresPrograms {
        let fileManager = FileManager.default
        var candidates = extraPaths
        if let path = ProcessInfo.processInfo.environment["PATH"] {
            candidates += path.split(separator: ":").map(String.init)
        }
        let debianRoot = "/usr/lib/postgresql"
        if let versions = try? fileManager.contentsOfDirectory(atPath: debianRoot) {
            let sorted = versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            candidates += sorted.map { "\(debianRoot)/\($0)/bin" }
        }
        for directory in candidates {
            let initdb = directory + "/initdb"
            let pgCtl = directory + "/pg_ctl"
            if fileManager.isExecutableFile(atPath: initdb), fileManager.isExecutableFile(atPath: pgCtl) {
                return PostgresPrograms(
                    directory: directory, initdb: initdb, pgCtl: pgCtl,
                    majorVersion: try majorVersion(ofInitdb: initdb))
            }
        }
        throw EmbeddedPostgresError(
            "PostgreSQL's server programs (initdb, pg_ctl) were not found on PATH or in /usr/lib/postgresql/*/bin. "
                + "Install them (Debian/Ubuntu: apt-get install -y postgresql), or set DATABASE_URL to use an "
                + "existing server.")
    }

    private static func majorVersion(ofInitdb initdb: String) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("subledger-initdb-version-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        _ = try ProgramRunner.spawnAndWait([initdb, "--version"], outputPath: outputPath)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // "initdb (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
        guard let version = output.split(separator: " ").first(where: { $0.first?.isNumber == true }) else {
            throw EmbeddedPostgresError("could not read the version of \(initdb): \(output)")
        }
        return String(version.split(separator: ".").first ?? version)
    }
}
