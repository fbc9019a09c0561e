import Foundation
import HTTPTestSupport
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real `subledger poll` binary delivering webhooks, killed with SIGKILL in the middle of deliveries.
@Suite("Webhook delivery processes", .serialized)
struct WebhookDeliveryProcessTests {
    @Test func killingADeliveringPollProcessLosesNoEvent() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let received = ReceivedEvents()
            try await StubHTTPServer.with(handler: { request in
                try? await Task.sleep(for: .milliseconds(10))
                return received.accept(request) == nil ? .empty(status: 400) : .empty(status: 200)
            }) { receiver in
                try await harness.addEndpoint(url: receiver.baseURL + "/hooks")
                let ids = Set(try await harness.insertEvents(400).map { $0.uuidString.lowercased() })
                let log = URL(fileURLWithPath: NSTemporaryDirectory() + "subledger-webhooks-\(harness.schema).log")
                defer { try? FileManager.default.removeItem(at: log) }

                let first = try Self.poll(schema: harness.schema, log: log)
                let deadline = Date().addingTimeInterval(60)
                while received.ids.count < 40, Date() < deadline, first.isRunning {
                    try await Task.sleep(for: .milliseconds(5))
                }
                kill(first.processIdentifier, SIGKILL)
                first.waitUntilExit()
                #expect(first.terminationReason == .uncaughtSignal, "\(Self.tail(log))")
                let sentBeforeKill = received.distinct.count
                #expect(sentBeforeKill >= 40, "\(Self.tail(log))")
                #expect(sentBeforeKill < ids.count, "the first process finished before it was killed")
                let leased = try await harness.pool.query(
                    "SELECT count(*) FROM webhook_deliveries WHERE state = 'pending' AND leased_by IS NOT NULL"
                ).single().decode(Int64.self, at: 0)
                #expect(leased > 0, "the kill left no lease in flight")

                // Another process takes over once the dead one's leases (2 s) have run out.
                let second = try Self.poll(schema: harness.schema, log: log)
                let until = Date().addingTimeInterval(90)
                while received.distinct.count < ids.count, Date() < until, second.isRunning {
                    try await Task.sleep(for: .milliseconds(20))
                }
                // The receiver's 200 comes before the process records the delivery: wait for the records too, or the
                // stop below gives the last leases back undelivered (to be sent again: at least once, not lost).
                while try await harness.states() != ["delivered": ids.count], Date() < until, second.isRunning {
                    try await Task.sleep(for: .milliseconds(20))
                }
                // SIGTERM: the deliverer stops and gives its leases back (the renewal job's own stop waits for its
                // interval, one second here).
                second.terminate()
                let stopBy = Date().addingTimeInterval(20)
                while second.isRunning, Date() < stopBy { try await Task.sleep(for: .milliseconds(20)) }
                if second.isRunning { kill(second.processIdentifier, SIGKILL) }
                second.waitUntilExit()
                #expect(second.terminationReason == .exit && second.terminationStatus == 0, "\(Self.tail(log))")
                #expect(received.distinct == ids)
                #expect(received.badSignatures == 0)
                #expect(try await harness.states() == ["delivered": ids.count])
                let stillLeased = try await harness.pool.query(
                    "SELECT count(*) FROM webhook_deliveries WHERE leased_by IS NOT NULL"
                ).single().decode(Int64.self, at: 0)
                #expect(stillLeased == 0)
            }
        }
    }

    @Test func aBadWebhookDeliveryFlagIsRefusedWithAClearError() throws {
        let output = Pipe()
        let process = Process()
        process.executableURL = try ServedSubLedger.binary()
        process.arguments = [
            "serve", "--webhook-delivery", "sometimes", "--database-url", "postgresql://127.0.0.1:1/none",
        ]
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        #expect(text.contains("--webhook-delivery must be on or off"), "\(text)")
    }

    /// SIGTERM stops `poll` at once, even when its renewal job would next run in an hour: every service's
    /// sleep is woken by graceful shutdown (rather than waiting out the renewal job's interval).
    @Test func sigtermStopsAPollWithAnHourLongIntervalAtOnce() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let log = URL(fileURLWithPath: NSTemporaryDirectory() + "subledger-poll-term-\(harness.schema).log")
            defer { try? FileManager.default.removeItem(at: log) }
            let process = try Self.poll(schema: harness.schema, log: log, interval: 3600)
            let started = Date().addingTimeInterval(60)
            while !Self.tail(log).contains("poll cycle 1"), Date() < started, process.isRunning {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(Self.tail(log).contains("poll cycle 1"), "\(Self.tail(log))")
            process.terminate()
            let sent = Date()
            let stopBy = sent.addingTimeInterval(30)
            while process.isRunning, Date() < stopBy { try await Task.sleep(for: .milliseconds(20)) }
            let stillRunning = process.isRunning
            if stillRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(!stillRunning, "poll was still running 30 s after SIGTERM")
            #expect(process.terminationReason == .exit && process.terminationStatus == 0, "\(Self.tail(log))")
        }
    }

    /// `subledger poll` on the test schema, delivering with 2-second leases.
    static func poll(schema: String, log: URL, interval: Int = 1) throws -> Process {
        let binary = try ServedSubLedger.binary()
        try ServedSubLedger.checkFresh(binary)
        var url = try TestDatabase.connectionString()
        url += (url.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(schema)"
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("SUBLEDGER_") || name == "DATABASE_URL" {
            environment[name] = nil
        }
        environment["DATABASE_URL"] = url
        if !FileManager.default.fileExists(atPath: log.path) {
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "poll", "--webhook-delivery", "on", "--webhook-lease-seconds", "2", "--interval-seconds", "\(interval)",
            "--log-level", interval == 1 ? "notice" : "info",
        ]
        process.environment = environment
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    static func tail(_ log: URL) -> String {
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(20).joined(separator: "\n")
    }
}
