import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs PostgreSQL's programs, as an unprivileged user when this process is root.
///
/// `initdb` and `postgres` refuse to run as root. As root, programs run through `runuser -u USER --`
/// and the folders they write are handed to that user; anyone else runs them directly.
struct ProgramRunner: Sendable {
    /// The user and group the programs run as when this process is root; `nil` otherwise.
    let switchTo: (name: String, uid: uid_t, gid: gid_t)?

    init(systemUser: String) throws {
        guard geteuid() == 0 else {
            switchTo = nil
            return
        }
        guard let entry = getpwnam(systemUser) else {
            throw EmbeddedPostgresError(
                "running as root, and PostgreSQL refuses to run as root: the embedded database runs as the "
                    + "unprivileged user '\(systemUser)', which does not exist. Install Debian's postgresql "
                    + "package (it creates that user), create the user, or set DATABASE_URL.")
        }
        switchTo = (systemUser, entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// Creates `path` (and its parents) and, when switching users, hands the folder itself to that user.
    func prepareDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if let user = switchTo {
            guard chown(path, user.uid, user.gid) == 0 else {
                throw EmbeddedPostgresError("could not give \(path) to user '\(user.name)' (errno \(errno))")
            }
        }
        _ = chmod(path, 0o700)
    }

    /// Runs `program` with `arguments`, output to `logFile` (or discarded), and returns its exit status.
    /// With a `failure` message, a non-zero exit throws that message with the end of the log.
    @discardableResult
    func run(_ program: String, _ arguments: [String], logFile: String?, failure: String?) throws -> Int32 {
        let argv: [String]
        if let user = switchTo {
            argv = [Self.runuserPath, "-u", user.name, "--", program] + arguments
        } else {
            argv = [program] + arguments
        }
        let status = try Self.spawnAndWait(argv, outputPath: logFile ?? "/dev/null")
        if status != 0, let failure {
            var detail = ""
            if let logFile, let text = try? String(contentsOfFile: logFile, encoding: .utf8) {
                detail = ": " + text.split(separator: "\n").suffix(8).joined(separator: "\n")
            }
            if let user = switchTo, detail.contains("Permission denied") {
                detail +=
                    "\n(hint: the user '\(user.name)' must be able to enter every parent folder of the "
                    + "embedded cluster's folder; choose a folder it can reach, or set DATABASE_URL)"
            }
            throw EmbeddedPostgresError("\(failure) (exit status \(status))\(detail)")
        }
        return status
    }

    /// Starts `argv` with standard input from /dev/null and output (both streams) to `outputPath`, and
    /// waits for it. posix_spawn and waitpid, not Foundation's Process: output goes to a file, never a
    /// pipe a server started by pg_ctl could inherit, and the wait cannot miss the child's exit.
    static func spawnAndWait(_ argv: [String], outputPath: String, environment: [String: String]? = nil) throws -> Int32
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var cEnvironment: [UnsafeMutablePointer<CChar>?] =
            environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] } ?? []
        defer { cEnvironment.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned =
            environment == nil
            ? posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
            : posix_spawn(&pid, argv[0], &actions, nil, &cArguments, &cEnvironment)
        guard spawned == 0 else {
            throw EmbeddedPostgresError("could not run \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 {
            guard errno == EINTR else {
                throw EmbeddedPostgresError("waiting for \(argv[0]) failed: \(String(cString: strerror(errno)))")
            }
        }
        // WIFEXITED / WEXITSTATUS are macros Swift does not import.
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    private static var runuserPath: String {
        for candidate in ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return "runuser"
    }
}
