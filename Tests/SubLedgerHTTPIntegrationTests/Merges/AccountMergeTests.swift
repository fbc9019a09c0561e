import AppStore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

/// Account merges over HTTP against a real PostgreSQL (docs/guides/accounts.md, "Merging accounts"): an anonymous
/// account's chains, grants and credits move to the signed-in account as transfers, the hash chain stays intact,
/// both accounts hear of it by webhook, and what the old id submits later (or while the merge runs) lands on the new.
@Suite struct AccountMergeTests {
    typealias H = ServiceHarness

    static func merge(
        _ client: some TestClientProtocol, into: String, from: String?, key: String, bundleID: String = H.appOne
    ) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        var body: [String: Any] = ["bundle_id": bundleID]
        if let from { body["from"] = from }
        return try await GrantTests.send(client, .post, "/v1/accounts/\(into)/merge", key: key, body)
    }

    static func entitlements(_ client: some TestClientProtocol, _ account: String, key: String) async throws -> (
        ids: [String], expiresAt: String?, credits: Int64?
    ) {
        let read = try await client.call(.get, "/v1/accounts/\(account)/entitlements", key: key)
        let list = GrantTests.entitlements(read.json)
        return (
            list.compactMap { $0["entitlement_id"] as? String }.sorted(), list.first?["expires_at"] as? String,
            (read.json["credits"] as? NSNumber)?.int64Value
        )
    }

    static func owner(_ original: String, _ harness: H) async throws -> String? {
        try await harness.pool.query(
            "SELECT owner_account_id FROM chains WHERE original_transaction_id = \(original)"
        ).first?.decode(String?.self, at: 0)
    }

    static func eventTypes(_ account: String, _ harness: H) async throws -> [String] {
        try await harness.pool.query(
            "SELECT event_type FROM webhook_events WHERE account_id = \(account) ORDER BY account_sequence"
        ).map { try $0.decode(String.self, at: 0) }
    }

    @Test func anonymousPurchasesGrantsAndCreditsFollowTheSignedInAccountAndTheOldIdsRenewalLandsThere() async throws {
        try await H.run { harness, client in
            let support = try await harness.keys.create(scope: .support, name: "support-desk").secret
            let reports = try await harness.keys.create(scope: .reports, name: "finance").secret
            harness.clock.set(H.day(1))
            for (id, product, expires) in [("9001", "pro.monthly", 31), ("9100", "coins.100", nil)]
                as [(String, String, Int?)]
            {
                let bought = try await client.call(
                    .post, "/v1/transactions", key: harness.keyOne,
                    json: [
                        "account_id": "anon-1",
                        "signed_transaction": try harness.signedTransaction(
                            id: id, product: product, purchasedOnDay: 1, expiresOnDay: expires),
                    ])
                #expect(bought.status == .ok)
            }
            let granted = try await GrantTests.send(
                client, .post, "/v1/accounts/anon-1/grants", key: support,
                ["bundle_id": H.appOne, "entitlement_id": "pro", "duration": "60d", "reason": "beta tester"])
            let grantID = try #require(granted.json["grant_id"] as? String)
            #expect(try await Self.entitlements(client, "anon-1", key: harness.keyOne).credits == 100)

            // An app's key may not merge (docs/guides/accounts.md): only admin and support keys.
            let refused = try await Self.merge(client, into: "alice", from: "anon-1", key: harness.keyOne)
            #expect(refused.status == .forbidden)
            #expect((refused.json["error"] as? [String: Any])?["code"] as? String == "wrong_key_scope")
            #expect(try await Self.merge(client, into: "alice", from: "anon-1", key: reports).status == .forbidden)

            harness.clock.set(H.day(5))
            let merged = try await Self.merge(client, into: "alice", from: "anon-1", key: support)
            #expect(merged.status == .ok)
            #expect(merged.json["merged"] as? Bool == true)
            let chains = (merged.json["chains"] as? [[String: Any]] ?? []).compactMap {
                $0["original_transaction_id"] as? String
            }
            #expect(chains == ["9001", "9100"])
            #expect(merged.json["grants"] as? [String] == [grantID])
            #expect((merged.json["credits"] as? NSNumber)?.int64Value == 100)

            let alice = try await Self.entitlements(client, "alice", key: harness.keyOne)
            #expect(alice.ids == ["pro"])
            #expect(alice.credits == 100)
            // The old id answers for itself: it holds nothing now.
            let anonymous = try await Self.entitlements(client, "anon-1", key: harness.keyOne)
            #expect(anonymous.ids.isEmpty)
            #expect(anonymous.credits == 0)
            let grantsOfAlice = try await GrantTests.send(
                client, .get, "/v1/accounts/alice/grants?bundle_id=\(H.appOne)", key: support)
            #expect((grantsOfAlice.json["grants"] as? [[String: Any]])?.count == 1)

            // The renewal the app still submits under the old id lands on alice.
            harness.clock.set(H.day(31))
            let renewal = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: [
                    "account_id": "anon-1",
                    "signed_transaction": try harness.signedTransaction(
                        id: "9002", original: "9001", purchasedOnDay: 31, expiresOnDay: 61),
                ])
            #expect(renewal.status == .ok)
            // The answer speaks for the account the submission landed on.
            #expect(renewal.json["account_id"] as? String == "alice")
            #expect((renewal.json["transactions"] as? [[String: Any]])?.first?["result"] as? String == "applied")
            #expect(GrantTests.entitlements(renewal.json).compactMap { $0["entitlement_id"] as? String } == ["pro"])
            #expect(try await Self.owner("9001", harness) == "alice")
            #expect(try await Self.entitlements(client, "alice", key: harness.keyOne).expiresAt != nil)
            #expect(try await Self.entitlements(client, "anon-1", key: harness.keyOne).ids.isEmpty)

            let aliases = try await GrantTests.send(
                client, .get, "/v1/accounts/alice/aliases?bundle_id=\(H.appOne)", key: support)
            #expect(aliases.status == .ok)
            let listed = aliases.json["aliases"] as? [[String: Any]] ?? []
            #expect(listed.compactMap { $0["account_id"] as? String } == ["anon-1"])
            #expect(listed.first?["merged_by"] as? String == "support-desk")
            // The merge is in the audit log with the support key's name.
            let audited = try await harness.pool.query(
                "SELECT key_name, status FROM audit_log WHERE method = 'POST' AND route LIKE '%/merge'"
            ).map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(Int32.self, at: 1))" }
            #expect(audited.contains("support-desk 200"))

            // Transfers in the ledger, by the merge's rule, for both accounts; the hash chain verifies.
            let transfers = try await harness.pool.query(
                """
                SELECT kind, account_id, reason FROM ledger_entries
                WHERE kind IN ('transfer_out', 'transfer_in') AND original_transaction_id = '9001' ORDER BY entry_id
                """
            ).map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1))" }
            #expect(transfers == ["transfer_out anon-1", "transfer_in alice"])
            #expect(try await harness.store.verifyLedgerChain(appID: nil, since: nil).isIntact)

            let anonymousEvents = try await Self.eventTypes("anon-1", harness)
            #expect(anonymousEvents.contains("ownership.transferred"))
            #expect(anonymousEvents.filter { $0 == "entitlement.revoked" }.count >= 2)
            #expect(anonymousEvents.contains("credits.changed"))
            let aliceEvents = try await Self.eventTypes("alice", harness)
            #expect(aliceEvents.contains("ownership.transferred"))
            #expect(aliceEvents.filter { $0 == "entitlement.granted" }.count >= 2)
            #expect(aliceEvents.contains("credits.changed"))
        }
    }

    /// The merged account's purchases are the other account's: its transactions are listed there and not under the
    /// old id, resubmitting them (by either id) is `applied` to the other account, and the app purchase it claimed
    /// is the other account's. Before the move they stayed the old id's: a resubmission answered
    /// `belongs_to_another_account`.
    @Test func theMergedAccountsTransactionsMoveSoTheirResubmissionIsAppliedUnderEitherId() async throws {
        try await H.run { harness, client in
            let support = try await harness.keys.create(bundleID: nil, name: "support-desk").secret
            harness.clock.set(H.day(1))
            let receipt = try harness.signedTransaction(
                id: "9301", product: "pro.monthly", purchasedOnDay: 1, expiresOnDay: 31)
            let bought = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "anon-t", "signed_transaction": receipt])
            #expect(bought.status == .ok)
            harness.clock.set(H.day(6))
            let claimed = try await AppTransactionsTests.claim(
                client, harness, account: "anon-t", try AppTransactionsTests.signedAppTransaction(harness))
            #expect(claimed.status == .ok)

            #expect(try await Self.merge(client, into: "tess", from: "anon-t", key: support).status == .ok)

            func listed(_ account: String) async throws -> [String] {
                let read = try await client.call(.get, "/v1/accounts/\(account)/transactions", key: harness.keyOne)
                #expect(read.status == .ok)
                return (read.json["transactions"] as? [[String: Any]] ?? []).compactMap {
                    $0["transaction_id"] as? String
                }
            }
            #expect(try await listed("tess") == ["9301"])
            #expect(try await listed("anon-t").isEmpty)
            #expect(
                try await harness.pool.query("SELECT account_id FROM transactions WHERE transaction_id = '9301'")
                    .map { try $0.decode(String?.self, at: 0) } == ["tess"])

            for submitter in ["tess", "anon-t"] {
                let again = try await client.call(
                    .post, "/v1/transactions", key: harness.keyOne,
                    json: ["account_id": submitter, "signed_transaction": receipt])
                #expect(again.status == .ok)
                #expect(again.json["account_id"] as? String == "tess")
                #expect(
                    (again.json["transactions"] as? [[String: Any]])?.compactMap { $0["result"] as? String }
                        == ["applied"], "resubmitted by \(submitter)")
            }
            #expect(try await Self.entitlements(client, "tess", key: harness.keyOne).ids == ["pro"])

            // The app purchase: a claim by the account merged into follows the old id's, which stays as history.
            let claims = try await harness.pool.query(
                """
                SELECT account_id FROM app_transaction_claims
                WHERE app_transaction_id = \(AppTransactionsTests.appTransactionID) ORDER BY sequence
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(claims == ["anon-t", "tess"])
            #expect(try await harness.store.verifyLedgerChain(appID: nil, since: nil).isIntact)
        }
    }

    /// A purchase of the merged account on a chain another account took over before the merge (a transfer leaves
    /// each transaction with the account it was credited to) is the merged-into account's too: listed there, and
    /// no longer under the old id.
    @Test func aPurchaseOnAChainThatChangedHandsBeforeTheMergeIsListedUnderTheNewAccount() async throws {
        try await H.run { harness, client in
            let support = try await harness.keys.create(bundleID: nil, name: "support-desk").secret
            func submit(_ account: String, _ signed: String) async throws {
                let answer = try await client.call(
                    .post, "/v1/transactions", key: harness.keyOne,
                    json: ["account_id": account, "signed_transaction": signed])
                #expect(answer.status == .ok)
            }
            func listed(_ account: String) async throws -> [String] {
                let read = try await client.call(.get, "/v1/accounts/\(account)/transactions", key: harness.keyOne)
                #expect(read.status == .ok)
                return (read.json["transactions"] as? [[String: Any]] ?? []).compactMap {
                    $0["transaction_id"] as? String
                }
            }
            harness.clock.set(H.day(1))
            try await submit(
                "anon-h",
                try harness.signedTransaction(id: "9501", product: "pro.monthly", purchasedOnDay: 1, expiresOnDay: 31))
            // Lapsed, then resubscribed on another account: the chain is carl's, 9501 stays anon-h's.
            harness.clock.set(H.day(40))
            try await submit(
                "carl",
                try harness.signedTransaction(id: "9502", original: "9501", purchasedOnDay: 40, expiresOnDay: 70))
            try #require(try await Self.owner("9501", harness) == "carl")
            #expect(try await listed("anon-h") == ["9501"])

            #expect(try await Self.merge(client, into: "hana", from: "anon-h", key: support).status == .ok)
            #expect(try await listed("hana") == ["9501"])
            #expect(try await listed("anon-h").isEmpty)
            #expect(try await listed("carl") == ["9502"])
            #expect(try await Self.owner("9501", harness) == "carl")
            #expect(try await harness.store.verifyLedgerChain(appID: nil, since: nil).isIntact)
        }
    }

    @Test func badMergesAreRefusedWithTheirCodesAndAliasesNeverCycle() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            func code(_ answer: (status: HTTPResponse.Status, json: [String: Any])) -> String? {
                (answer.json["error"] as? [String: Any])?["code"] as? String
            }
            let selfMerge = try await Self.merge(client, into: "a", from: "a", key: admin)
            #expect(selfMerge.status == .unprocessableContent)
            #expect(code(selfMerge) == "merge_into_self")
            let noSource = try await Self.merge(client, into: "a", from: nil, key: admin)
            #expect(noSource.status == .badRequest)
            #expect(code(noSource) == "missing_merge_source")
            let tooLong = try await Self.merge(client, into: "a", from: String(repeating: "x", count: 256), key: admin)
            #expect(tooLong.status == .badRequest)
            #expect(code(tooLong) == "invalid_account_id")
            let noApp = try await Self.merge(client, into: "a", from: "b", key: admin, bundleID: "com.example.none")
            #expect(noApp.status == .notFound)
            #expect(code(noApp) == "unknown_app")

            // An unknown account holds nothing: an empty move, and its alias is recorded.
            let empty = try await Self.merge(client, into: "a", from: "b", key: admin)
            #expect(empty.status == .ok)
            #expect(empty.json["merged"] as? Bool == true)
            #expect((empty.json["chains"] as? [Any])?.isEmpty == true)
            // Again: nothing moves, said so.
            let repeated = try await Self.merge(client, into: "a", from: "b", key: admin)
            #expect(repeated.status == .ok)
            #expect(repeated.json["merged"] as? Bool == false)
            // Back the other way would be a cycle; into another account, a fork.
            let back = try await Self.merge(client, into: "b", from: "a", key: admin)
            #expect(back.status == .conflict)
            #expect(code(back) == "account_merged")
            let elsewhere = try await Self.merge(client, into: "c", from: "b", key: admin)
            #expect(elsewhere.status == .conflict)
            #expect(code(elsewhere) == "account_merged")
            // Merging `a` on moves its aliases with it: `b` now means `c` in one lookup.
            let onward = try await Self.merge(client, into: "c", from: "a", key: admin)
            #expect(onward.status == .ok)
            let aliases = try await GrantTests.send(
                client, .get, "/v1/accounts/c/aliases?bundle_id=\(H.appOne)", key: admin)
            #expect(
                (aliases.json["aliases"] as? [[String: Any]])?.compactMap { $0["account_id"] as? String }.sorted()
                    == ["a", "b"])
        }
    }

    @Test func submissionsOfTheOldIdRacingTheMergeEndWithTheNewAccount() async throws {
        try await H.run { harness, client in
            let support = try await harness.keys.create(bundleID: nil, name: "support-desk").secret
            harness.clock.set(H.day(1))
            let first = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: [
                    "account_id": "anon-r",
                    "signed_transaction": try harness.signedTransaction(
                        id: "8000", product: "coins.100", purchasedOnDay: 1, expiresOnDay: nil),
                ])
            #expect(first.status == .ok)
            let ids = (1...12).map { String(8000 + $0) }
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for id in ids {
                    let signed = try harness.signedTransaction(
                        id: id, product: "coins.100", purchasedOnDay: 1, expiresOnDay: nil)
                    group.addTask {
                        try await client.call(
                            .post, "/v1/transactions", key: harness.keyOne,
                            json: ["account_id": "anon-r", "signed_transaction": signed]
                        ).status
                    }
                    if id == ids[5] {
                        group.addTask { try await Self.merge(client, into: "bob", from: "anon-r", key: support).status }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == ids.count + 1)
            #expect(statuses.allSatisfy { $0 == .ok })
            for id in ["8000"] + ids { #expect(try await Self.owner(id, harness) == "bob") }
            let bob = try await Self.entitlements(client, "bob", key: harness.keyOne)
            #expect(bob.credits == Int64(100 * (ids.count + 1)))
            #expect(try await Self.entitlements(client, "anon-r", key: harness.keyOne).credits == 0)
            #expect(try await harness.store.verifyLedgerChain(appID: nil, since: nil).isIntact)
        }
    }
    /// Set once by the test to let a held transaction commit.
    final class Release: Sendable {
        private let released = Mutex(false)
        func set() { released.withLock { $0 = true } }
        var isSet: Bool { released.withLock { $0 } }
    }

    /// A submission that arrives while a merge of its account is under way (its lock held, its alias written but
    /// not committed) waits for it, and then lands on the account merged into. Without the account's lock the
    /// submission would read no alias and commit the purchase to the old id.
    @Test func aSubmissionArrivingDuringAMergeWaitsForItAndLandsOnTheNewAccount() async throws {
        try await H.run { harness, client in
            harness.clock.set(H.day(1))
            let appID = try await harness.pool.query("SELECT app_id FROM apps WHERE bundle_id = \(H.appOne)")
                .single().decode(Int64.self, at: 0)
            let release = Release()
            let held = Release()
            // The merge under way: the account's lock as `AccountAliasRows.lock` takes it, and the alias.
            let lockKey = "account:\(appID):anon-w"
            let merge = Task {
                try await harness.pool.transaction { connection in
                    _ = try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(lockKey), 0))")
                    _ = try connection.query(
                        """
                        INSERT INTO account_aliases (app_id, account_id, merged_into, merged_by, merged_at)
                        VALUES (\(appID), 'anon-w', 'walt', 'test', now())
                        """)
                    held.set()
                    while !release.isSet { usleep(2_000) }
                }
            }
            let signed = try harness.signedTransaction(
                id: "8500", product: "coins.100", purchasedOnDay: 1, expiresOnDay: nil)
            // The submission is sent only once the merge holds the lock (bounded against a hang; not a measurement).
            for _ in 0..<12_000 where !held.isSet { try await Task.sleep(for: .milliseconds(5)) }
            try #require(held.isSet, "the merge did not take the account's lock")
            let submission = Task {
                let answer = try await client.call(
                    .post, "/v1/transactions", key: harness.keyOne,
                    json: ["account_id": "anon-w", "signed_transaction": signed])
                return (status: answer.status, account: answer.json["account_id"] as? String)
            }
            // Until the submission waits on an advisory lock (bounded: a submission that does not wait goes on).
            var waited = false
            for _ in 0..<12_000 where !waited {
                waited =
                    try await harness.pool.query(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                    ).single().decode(Int64.self, at: 0) > 0
                if !waited { try await Task.sleep(for: .milliseconds(5)) }
            }
            release.set()
            try await merge.value
            let answer = try await submission.value
            #expect(waited)
            #expect(answer.status == .ok)
            #expect(answer.account == "walt")
            #expect(try await Self.owner("8500", harness) == "walt")
        }
    }

    /// A claim of an app purchase holds the purchase's lock and then takes its account's; a merge of that account
    /// takes the locks of the purchases the account claimed before the accounts' locks, so while it waits for the
    /// claim it holds no account lock the claim needs (else each would hold what the other waits for, a deadlock
    /// that PostgreSQL ends after `deadlock_timeout` by aborting one, retried).
    @Test func aMergeWaitsForAClaimOfTheMergedAccountsAppPurchaseWithoutDeadlock() async throws {
        try await H.run { harness, client in
            let support = try await harness.keys.create(bundleID: nil, name: "support-desk").secret
            harness.clock.set(H.day(6))
            let token = try AppTransactionsTests.signedAppTransaction(harness)
            #expect(try await AppTransactionsTests.claim(client, harness, account: "anon-c", token).status == .ok)
            let appID = try await harness.pool.query("SELECT app_id FROM apps WHERE bundle_id = \(H.appOne)")
                .single().decode(Int64.self, at: 0)
            let release = Release()
            let held = Release()
            // A claim under way: the purchase's lock as `AppTransactionStore.claim` takes it, then, once released,
            // its account's (shared) as `AccountRows.ensure` takes it: free at once, the merge waiting before it.
            let purchaseKey = "app-transaction:\(appID):Production:\(AppTransactionsTests.appTransactionID)"
            let accountKey = "account:\(appID):anon-c"
            let claim = Task {
                try await harness.pool.transaction { connection in
                    _ = try connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(purchaseKey), 0))")
                    held.set()
                    while !release.isSet { usleep(2_000) }
                    return try connection.query(
                        "SELECT pg_try_advisory_xact_lock_shared(hashtextextended(\(accountKey), 0))"
                    ).single().decode(Bool.self, at: 0)
                }
            }
            // Bounded waits against a hang; not measurements.
            for _ in 0..<12_000 where !held.isSet { try await Task.sleep(for: .milliseconds(5)) }
            try #require(held.isSet, "the claim did not take the purchase's lock")
            let merge = Task { try await Self.merge(client, into: "cara", from: "anon-c", key: support).status }
            var waiting = false
            for _ in 0..<12_000 where !waiting {
                waiting =
                    try await harness.pool.query(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                    ).single().decode(Int64.self, at: 0) > 0
                if !waiting { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(waiting)
            release.set()
            #expect(try await claim.value, "the merge held the account's lock while waiting for the claim")
            #expect(try await merge.value == .ok)
            let claims = try await harness.pool.query(
                """
                SELECT account_id FROM app_transaction_claims
                WHERE app_transaction_id = \(AppTransactionsTests.appTransactionID) ORDER BY sequence
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(claims == ["anon-c", "cara"])
        }
    }
}
