import Foundation
import Testing

@testable import SubLedgerCommands

/// `subledger serve`'s read replica options: a mistake stops it before it starts, with a message that says which.
@Suite struct ServeOptionsCommandTests {
    /// Parses `serve ARGUMENTS` and builds its configuration over `environment`, as `serve` does before it opens
    /// anything; returns the message of the error that stops it ("" when nothing does).
    static func serve(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, output: String) {
        do {
            let command = try SubLedgerCommand.parseAsRoot(["serve", "--port", "0"] + arguments)
            guard let serve = command as? ServeCommand else { return (-1, "not the serve command") }
            _ = try serve.configuration(environment: environment)
            return (0, "")
        } catch {
            return (SubLedgerCommand.exitCode(for: error).rawValue, SubLedgerCommand.fullMessage(for: error))
        }
    }

    static let primary = "postgresql://subledger@db1/ledger"

    @Test func mistakesInTheReadReplicaOptionsStopServeWithAClearMessage() async throws {
        // A data folder that a refused configuration must leave as it found it (no key file created).
        let unused = NSTemporaryDirectory() + "unused-\(UUID())"
        defer { try? FileManager.default.removeItem(atPath: unused) }
        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            (
                ["--database-url", Self.primary, "--read-database-url", "host=a,b,c port=1,2"], [:],
                "names 3 hosts but 2 ports"
            ),
            (["--database-url", Self.primary, "--read-database-url", "postgresql://%zz"], [:], "--read-database-url"),
            (
                ["--database-url", Self.primary, "--read-database-url", "host=b", "--read-max-lag-ms", "0"], [:],
                "--read-max-lag-ms must be between 1 and 3600000"
            ),
            (
                ["--database-url", Self.primary, "--read-database-url", "host=b", "--read-token-wait-ms", "70000"], [:],
                "--read-token-wait-ms must be between 0 and 60000"
            ),
            (
                ["--database-url", Self.primary],
                ["SUBLEDGER_READ_DATABASE_URL": "host=b", "SUBLEDGER_READ_MAX_LAG_MS": "soon"],
                "SUBLEDGER_READ_MAX_LAG_MS must be a whole number"
            ),
            (["--database-url", Self.primary, "--read-max-lag-ms", "500"], [:], "need --read-database-url"),
            (["--read-database-url", "host=b"], ["SUBLEDGER_DATA_DIR": unused], "needs a configured primary"),
        ]
        for (arguments, environment, message) in cases {
            let result = Self.serve(arguments, environment: environment)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.output.contains(message), "\(arguments): \(result.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: unused + "/secret.key"))
    }

    /// `SUBLEDGER_POSTGRES_READINESS_THREADS`: a whole number from 1 to 64 becomes the configuration's count of
    /// readiness threads; anything else stops `serve` and names the variable; unset leaves the default (nil).
    @Test func theReadinessThreadsAreAWholeNumberFromOneTo64() throws {
        func configured(_ value: String?) throws -> Int? {
            let command = try SubLedgerCommand.parseAsRoot(["serve", "--port", "0", "--database-url", Self.primary])
            let serve = try #require(command as? ServeCommand)
            var environment: [String: String] = [:]
            environment["SUBLEDGER_POSTGRES_READINESS_THREADS"] = value
            return try serve.configuration(environment: environment).databaseReadinessThreads
        }
        #expect(try configured(nil) == nil)
        #expect(try configured("") == nil)
        #expect(try configured("1") == 1)
        #expect(try configured("4") == 4)
        #expect(try configured("64") == 64)
        for (value, message) in [
            ("0", "SUBLEDGER_POSTGRES_READINESS_THREADS must be between 1 and 64"),
            ("65", "SUBLEDGER_POSTGRES_READINESS_THREADS must be between 1 and 64"),
            ("-3", "SUBLEDGER_POSTGRES_READINESS_THREADS must be between 1 and 64"),
            ("four", "SUBLEDGER_POSTGRES_READINESS_THREADS must be a whole number"),
            ("99999999999999999999999", "SUBLEDGER_POSTGRES_READINESS_THREADS must be a whole number"),
        ] {
            let result = Self.serve(
                ["--database-url", Self.primary], environment: ["SUBLEDGER_POSTGRES_READINESS_THREADS": value])
            #expect(result.status != 0, "\(value)")
            #expect(result.output.contains(message), "\(value): \(result.output)")
        }
    }
}
