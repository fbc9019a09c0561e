import AppStore
import AppStoreStore
import Foundation
import HTTPTestSupport
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

/// Calls to Apple beyond the process's limit wait for a free one instead of failing: with a slow Apple every
/// request is answered by Apple; only a call that finds no slot within the bound is refused.
@Suite struct AppleCallSlotsTests {
    /// Calls in flight now and the most seen at once.
    final class InFlight: Sendable {
        private let counts = Mutex((now: 0, most: 0, total: 0))
        func enter() {
            counts.withLock {
                $0.now += 1
                $0.total += 1
                $0.most = max($0.most, $0.now)
            }
        }
        func leave() { counts.withLock { $0.now -= 1 } }
        var most: Int { counts.withLock { $0.most } }
        var total: Int { counts.withLock { $0.total } }
    }

    @Test func callsBeyondTheLimitWaitForAFreeSlot() async {
        let slots = AppleCallSlots(limit: 3, wait: .seconds(600))
        let inFlight = InFlight()
        let granted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    guard await slots.acquire() else { return false }
                    inFlight.enter()
                    await Task.yield()
                    inFlight.leave()
                    slots.release()
                    return true
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(granted == 12)
        #expect(inFlight.most <= 3)
        #expect(inFlight.total == 12)
    }

    @Test func aCallThatFindsNoFreeSlotWithinTheBoundIsRefused() async {
        let slots = AppleCallSlots(limit: 2, wait: .milliseconds(50))
        #expect(await slots.acquire())
        #expect(await slots.acquire())
        let refused = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<5 { group.addTask { await slots.acquire() } }
            return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
        #expect(refused == 5)
        slots.release()
        #expect(await slots.acquire())
    }

    /// A slow verifyReceipt and four connections: sixteen calls at once are all answered by Apple, at most four at
    /// a time. (Without the slots the HTTP client queued the rest and failed those that waited longer than the
    /// connect timeout.)
    @Test func aSlowAppleAnswersEveryCallMadeAtOnce() async throws {
        let inFlight = InFlight()
        let stub = try await StubHTTPServer.start { _ in
            inFlight.enter()
            try? await Task.sleep(for: .milliseconds(700))
            inFlight.leave()
            return .json(#"{"status": 21002}"#)
        }
        defer { Task { await stub.shutdown() } }
        let gateway = try AppleGateway(
            configuration: AppleConfiguration(
                verifyReceiptProductionURL: stub.baseURL + "/verifyReceipt",
                verifyReceiptSandboxURL: stub.baseURL + "/sandbox/verifyReceipt", timeout: .seconds(60),
                connectTimeout: .milliseconds(300), maximumConnections: 4, callSlotWait: .seconds(60),
                circuitBreakerThreshold: 0),
            logger: TestDatabase.logger)
        let app = StoredApp(appID: 1, definition: App(bundleID: "com.example.slow", products: []), sharedSecret: "s")
        try await TestDatabase.withSchema { _, _, pool in
            let ingestion = Ingestion(
                store: LedgerStore(pool: pool), catalog: CatalogStore(pool: pool), apple: gateway,
                logger: TestDatabase.logger, now: { Instant.systemNow() })
            let answered = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<16 { group.addTask { await ingestion.appleAnswers(app: app) } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(answered == 16)
            #expect(inFlight.total == 16)
            #expect(inFlight.most <= 4)
        }
    }
}
