import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real `subledger serve` executable in a child process, so that a trap (an arithmetic overflow, a
/// force unwrap) ends the child and the campaign sees it, instead of ending the test runner itself.
///
/// The binary is the one `swift build` made beside the test bundle (`.build/debug/subledger`), or the path in
/// `SUBLEDGER_FUZZ_BINARY`.
final class ServedSubLedger {
    static let binaryVariable = "SUBLEDGER_FUZZ_BINARY"

    let arguments: [String]
    let logURL: URL
    private(set) var port: Int = 0
    /// Where this child's part of the (shared, appended) log starts.
    private(set) var startOffset: UInt64 = 0
    private var process: Process?
    private var logHandle: FileHandle?

    init(arguments: [String], logURL: URL) {
        self.arguments = arguments
        self.logURL = logURL
    }

    /// Where the built `subledger` executable is.
    static func binary() throws -> URL {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment[binaryVariable], !explicit.isEmpty {
            candidates.append(URL(fileURLWithPath: explicit))
        }
        // Beside the test bundle (`.build/<triple>/debug/SubLedgerPackageTests.xctest`).
        var runner = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        for _ in 0..<4 {
            runner = runner.deletingLastPathComponent()
            candidates.append(runner.appendingPathComponent("subledger"))
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/subledger"))
        candidates.append(
            URL(fileURLWithPath: fileManager.currentDirectoryPath).appendingPathComponent(".build/debug/subledger"))
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if fileManager.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                fileManager.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
        }
        throw FuzzSetupError(
            "the subledger executable was not found (looked at \(candidates.map(\.path).joined(separator: ", "))); "
                + "build it with `swift build --build-tests` or set \(binaryVariable)")
    }

    /// Fails when a source file the executable is built from is newer than `binary`: `swift test` alone does not
    /// rebuild the executable, and a campaign against an old build would prove nothing. The simulators' and the
    /// other executables' folders are not part of `subledger` (a build after changing them does not relink it).
    static func checkFresh(_ binary: URL) throws {
        let fileManager = FileManager.default
        guard let built = (try? fileManager.attributesOfItem(atPath: binary.path)[.modificationDate]) as? Date else {
            return
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let files = ["Sources", "migrations"].compactMap {
            fileManager.enumerator(
                at: root.appendingPathComponent($0), includingPropertiesForKeys: [.contentModificationDateKey])
        }.flatMap { $0.compactMap { $0 as? URL } }
        let notLinked = [
            "AppStoreSimulator", "GooglePlaySimulator", "StripeSimulator", "appstore-sim", "play-sim", "stripe-sim",
            "subledger-bench",
        ].map { root.appendingPathComponent("Sources").appendingPathComponent($0).path + "/" }
        for file in files where file.pathExtension == "swift" || file.pathExtension == "sql" {
            if notLinked.contains(where: { file.path.hasPrefix($0) }) { continue }
            if let changed = try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate,
                changed > built.addingTimeInterval(1)
            {
                throw FuzzSetupError(
                    "\(binary.path) is older than \(file.path): build it first (`swift build --build-tests`, as scripts/test does)"
                )
            }
        }
    }

    /// Starts the child and waits until `/health/live` answers 200.
    func start() async throws {
        let port = try LoopbackPort.free()
        let process = Process()
        let binary = try Self.binary()
        try Self.checkFresh(binary)
        process.executableURL = binary
        process.arguments = arguments + ["--host", "127.0.0.1", "--port", String(port)]
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("SUBLEDGER_") || name == "DATABASE_URL" {
            environment[name] = nil
        }
        // A trap prints the crashed thread's backtrace (where the crash is) and nothing more, to keep restarts quick.
        environment["SWIFT_BACKTRACE"] = "enable=yes,interactive=no,threads=crashed,registers=none,images=none"
        process.environment = environment
        if !FileManager.default.fileExists(atPath: logURL.path) {
            _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: logURL)
        startOffset = handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.logHandle = handle
        self.port = port
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard process.isRunning else {
                throw FuzzSetupError(
                    "subledger serve exited at start (status \(process.terminationStatus)); log:\n\(logTail())")
            }
            if case .answered(let response) = await RawHTTPConnection.exchange(
                port: port, request: Array("GET /health/live HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n\r\n".utf8),
                timeout: 2), response.status == 200
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        stop()
        throw FuzzSetupError("subledger serve did not answer /health/live within 60 s; log:\n\(logTail())")
    }

    var isRunning: Bool { process?.isRunning ?? false }

    /// How the child ended, for a finding (`nil` while it runs).
    var exitDescription: String? {
        guard let process, !process.isRunning else { return nil }
        if process.terminationReason == .uncaughtSignal { return "signal \(process.terminationStatus)" }
        return "exit status \(process.terminationStatus)"
    }

    /// Stops the child: SIGTERM, then SIGKILL after 3 s (a child still draining a stalled request would
    /// otherwise hold its database connections, and the test's schema, for minutes).
    func stop() {
        guard let process else { return }
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning, Date() < deadline { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? logHandle?.close()
        logHandle = nil
        self.process = nil
    }

    /// Kills the child at once (SIGKILL: no shutdown, no lease given back), as a crash or `kill -9` would.
    func kill9() {
        guard let process else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? logHandle?.close()
        logHandle = nil
        self.process = nil
    }

    /// The log's size now (to read what a later step wrote).
    var logOffset: UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: logURL.path)[.size]) as? NSNumber)?.uint64Value ?? 0
    }

    /// What the child logged since `offset`.
    func log(since offset: UInt64) -> String {
        guard let handle = try? FileHandle(forReadingFrom: logURL) else { return "" }
        defer { try? handle.close() }
        try? handle.seek(toOffset: offset)
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }

    /// The last lines this child logged.
    func logTail(lines: Int = 25) -> String {
        let text = log(since: startOffset)
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines).joined(separator: "\n")
    }
}

struct FuzzSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
