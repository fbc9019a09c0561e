import AppStoreSimulator
import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresLibPQ
import SeededRandom
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// One simulated world, generated from a seed: an app under one ownership policy, a few Apple IDs shared by a few
/// of the app's accounts, and a life of customer and store actions driven through SubLedger's HTTP API, with
/// appstore-sim as Apple (its notifications posted to SubLedger, or lost and retried on Apple's schedule).
///
/// After every step the world compares SubLedger's database and answers with `ReferenceModel`, fed what SubLedger
/// was told in the order it was told; the first disagreement ends the world and is returned with the steps that led
/// to it (the seed replays them exactly: the simulator's identifiers and clock are seeded too).
struct CustomerLifeWorld {
    typealias E = EndToEndHarness

    /// The world's setup (its policy, Apple IDs and accounts) and the simulator's identifiers and clock.
    let seed: UInt64
    /// The world's life, step by step.
    let plan: [Step]

    /// One step of a life (`SimulationStep`): an action of the table in `Life.act(roll:)` and its entropy.
    typealias Step = SimulationStep

    /// The world of `seed` with `steps` steps drawn from it.
    init(seed: UInt64, steps: Int) {
        self.init(seed: seed, plan: Self.plan(seed: seed, steps: steps))
    }

    /// The world of `seed` living exactly `plan` (a shrunk reproduction replays this way).
    init(seed: UInt64, plan: [Step]) {
        self.seed = seed
        self.plan = plan
    }

    /// The steps `seed` draws: a generator of their own, apart from the setup's.
    static func plan(seed: UInt64, steps: Int) -> [Step] { SimulationStep.plan(seed: seed, steps: steps) }

    /// The subscription's price in the world of `seed`: 9.99 USD, 1,100 JPY (no decimals) or 2.990 KWD (three).
    static func price(seed: UInt64) -> (milli: Int64, currency: String) {
        SimulationMoney.price(seed: seed)
    }

    /// What ended a world early: the invariant broken, at which step, and the steps so far.
    struct Violation: Error, CustomStringConvertible {
        var seed: UInt64
        var step: Int
        var invariant: String
        var log: [String]
        /// The plan through the failing step.
        var plan: [Step] = []
        var description: String {
            "seed \(seed), step \(step): \(invariant)\nsteps (replay: SIMULATION_SEEDS=\(seed), with the same step count):\n"
                + log.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
                + "\nas a plan: CustomerLifeWorld(seed: \(seed), plan: [\(plan.map(\.description).joined(separator: ", "))])"
        }
    }

    /// The subscriptions the world's app sells in one group, each granting `pro`, with what Apple charges for each in
    /// the world's currency: `pro.monthly` at the world's price, `pro.plus` (a month, the same level: a crossgrade to
    /// or from it takes effect at once) at twice it, and `pro.yearly` (a change to or from it waits for the renewal)
    /// at ten times it.
    static func prices(seed: UInt64) -> [String: Int64] {
        let monthly = price(seed: seed).milli
        return ["pro.monthly": monthly, "pro.plus": 2 * monthly, "pro.yearly": 10 * monthly]
    }

    /// Runs the world; nil when every invariant held after every step, else the first violation.
    func run() async throws -> Violation? {
        do {
            let price = Self.price(seed: seed)
            let prices = Self.prices(seed: seed)
            let plus = ProductDefinition(
                productID: "pro.plus", type: .autoRenewable, subscriptionGroupID: "g1", duration: .oneMonth,
                price: prices["pro.plus"], currency: price.currency)
            try await E.run(
                secondServer: true, monthlyPrice: price, yearlyPrice: (prices["pro.yearly"] ?? 0, price.currency),
                moreProducts: [plus]
            ) { e in
                var life = try await Life(seed: seed, e: e, price: price)
                var violation = try await life.live(plan: plan)
                if let step = violation?.step { violation?.plan = Array(plan.prefix(step + 1)) }
                if ProcessInfo.processInfo.environment["SIMULATION_VERBOSE"] != nil {
                    print("world \(seed):\n" + life.log.map { "  " + $0 }.joined(separator: "\n"))
                }
                if let violation { throw violation }
            }
        } catch let violation as Violation {
            return violation
        }
        return nil
    }
}

/// The running state of one world.
private struct Life {
    typealias E = EndToEndHarness

    let seed: UInt64
    let e: E
    let admin: String
    var random: SplitMix64
    var model: ReferenceModel
    var appleIDs: [String] = []
    var accounts: [String] = []
    /// Apple ID → its subscription's chain (one subscription group: one chain per Apple ID).
    var chainOf: [String: String] = [:]
    /// Chain → whether auto-renew is on, as this world last set it.
    var autoRenew: [String: Bool] = [:]
    var notificationsDown = false
    /// Whether SubLedger holds the app's App Store Server API key.
    var serverAPIKey = false
    /// The server Apple's notifications are posted to (`TwoServers`): 1 or 2.
    var notifiedServer = 1
    /// An invariant a step's own answers broke (a submission answered other than the model), reported after the step.
    var broken: String?
    var absorbed: Set<String> = []
    /// The accounts SubLedger has heard of: each made an order or a submission.
    var known: Set<String> = []
    /// The purchases SubLedger got a signed statement of (a notification or a StoreKit 2 transaction), which states
    /// Apple's price; a receipt states none (docs/explanation/revenue.md).
    var signed: Set<String> = []
    var log: [String] = []
    /// What Apple charges for the world's subscription (`CustomerLifeWorld.price(seed:)`).
    let price: (milli: Int64, currency: String)
    /// What Apple charges for each of the app's subscriptions, in the world's currency.
    let prices: [String: Int64]
    /// Transactions whose refund Apple reversed: this world refunds a transaction once at most.
    var reversed: Set<String> = []

    init(seed: UInt64, e: E, price: (milli: Int64, currency: String)) async throws {
        self.seed = seed
        self.e = e
        self.price = price
        prices = CustomerLifeWorld.prices(seed: seed)
        random = SplitMix64(seed: seed)
        let policy = ReferenceModel.Policy.allCases[Int(random.next() % 3)]
        model = ReferenceModel(policy: policy)
        // Half the worlds give SubLedger the app's App Store Server API key: the renewal job then checks StoreKit 2
        // chains through it, an import may name a chain by its id, and SubLedger reads from it what a submission or
        // a notification leaves out (a contested chain's current state, a chain's earlier transactions).
        serverAPIKey = random.next() % 2 == 0
        try await e.applyCatalog(
            ownershipPolicy: try OwnershipPolicy(rawValue: policy.rawValue).unwrap(),
            withTheSimulatorsServerAPIKey: serverAPIKey,
            catalogYAML: ServiceHarness.catalogYAML.replacingOccurrences(
                of: "      - { product_id: pro.yearly,",
                with: "      - { product_id: pro.plus, type: auto_renewable, subscription_group_id: \"g1\", "
                    + "entitlements: [pro] }\n      - { product_id: pro.yearly,"))
        admin = try await e.service.keys.create(bundleID: nil, name: "simulation").secret
        for _ in 0..<(2 + Int(random.next() % 2)) { appleIDs.append(try e.appleID()) }
        for index in 0..<(3 + Int(random.next() % 2)) { accounts.append("acct-\(seed)-\(index)") }
        log.append(
            "policy \(policy.rawValue); \(appleIDs.count) Apple IDs; accounts \(accounts); \(price.milli) milli-\(price.currency)"
                + (serverAPIKey ? "; with the Server API key" : ""))
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
    /// The server a submission goes to, of the world's two on one database (`TwoServers`), and its name for the log.
    mutating func server() -> (client: any TestClientProtocol, name: String) {
        chance(50) ? (e.client, "server 1") : (e.secondClient, "server 2")
    }
    var now: Int64 { e.control.clock().now }
    var liveAccounts: [String] { accounts.filter { model.canonical($0) == $0 && !model.erased.contains($0) } }

    mutating func live(plan: [CustomerLifeWorld.Step]) async throws -> CustomerLifeWorld.Violation? {
        let steps = plan.count
        for (step, choice) in plan.enumerated() {
            // Every choice of this step comes from its own entropy: leaving out an earlier step changes none of it.
            random = SplitMix64(seed: choice.entropy)
            do {
                try await routeNotifications()
                try await act(roll: UInt64(choice.kind) % 100)
            } catch let failure as SimulationFailure {
                return .init(
                    seed: seed, step: step, invariant: "an answer the simulation cannot go on from: \(failure)",
                    log: log)
            }
            if let broken { return .init(seed: seed, step: step, invariant: broken, log: log) }
            if let broken = try await check() {
                return .init(seed: seed, step: step, invariant: broken, log: log)
            }
        }
        // The end: notifications back, and a few days for Apple's retries to reach SubLedger.
        if notificationsDown { try await setNotifications(down: false) }
        _ = await e.control.advanceClock(.init(days: 4))
        try absorbNotifications()
        log.append("end: notifications delivered, 4 days later")
        if let broken = try await check() { return .init(seed: seed, step: steps, invariant: broken, log: log) }
        if let leak = try await erasedIDLeft() {
            return .init(seed: seed, step: steps, invariant: leak, log: log)
        }
        let verification = try await e.service.store.verifyLedgerChain(appID: nil, since: nil)
        if let first = verification.breaks.first {
            return .init(seed: seed, step: steps, invariant: "ledger verify: \(first)", log: log)
        }
        if let broken = try await checkRevenue() { return .init(seed: seed, step: steps, invariant: broken, log: log) }
        return nil
    }

    // MARK: Actions

    mutating func act(roll: UInt64) async throws {
        switch roll {
        case 0..<24: try await buy()
        case 24..<36: try await submitReceipt(appleID: pick(appleIDs), account: pick(accounts))
        case 36..<39: try await submitReceiptConcurrently()
        case 39..<42: try await submitReceiptFromTwoAccountsConcurrently()
        case 42..<48: try await submitSignedTransaction()
        case 48..<56: try await toggleAutoRenew()
        case 56..<71:
            let days = Int64(1 + random.next() % 40)
            _ = await e.control.advanceClock(.init(days: days))
            log.append("the clock advances \(days) days")
            try absorbNotifications()
        case 71..<76: try await runRenewalJob()
        case 76..<79: try await importRow()
        case 79..<84: try await refund()
        case 84..<86: try await reverseRefund()
        case 86..<90: try await changeProduct()
        case 90..<95: try await setNotifications(down: !notificationsDown)
        case 95..<98: try await merge()
        default: try await erase()
        }
    }

    /// A customer buys on an Apple ID, for an account (with that account's order token half the time), and the app
    /// usually uploads the receipt at once, as that account or, now and then, another one signed in.
    mutating func buy() async throws {
        let appleID = pick(appleIDs)
        let account = pick(liveAccounts)
        var token: String?
        if chance(50) {
            let order = try await e.client.call(
                .post, "/v1/orders", key: e.key, json: ["account_id": account, "product_id": "pro.monthly"])
            guard order.status == .created, let made = order.json["app_account_token"] as? String else {
                throw SimulationFailure("POST /v1/orders answered \(order.status): \(order.json)")
            }
            model.recordOrder(token: made, account: account)
            known.insert(account)
            token = made
        }
        let bought: ActionResult
        do {
            bought = try await e.control.purchase(
                PurchaseRequest(
                    appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly", appAccountToken: token,
                    applicationUsername: token))
        } catch {
            log.append("\(appleID) cannot buy now (\(error.code))")
            return
        }
        if let chain = bought.originalTransactionID {
            chainOf[appleID] = chain
            autoRenew[chain] = true
        }
        log.append(
            "\(appleID) buys \(bought.transactionID ?? "?") for \(account)\(token == nil ? " without a token" : " with its order's token")"
        )
        try absorbNotifications()
        if chance(75) {
            try await submitReceipt(appleID: appleID, account: chance(80) ? account : pick(accounts))
        }
    }

    /// `account` uploads the device's receipt for `appleID` (a restore, or the app's routine upload).
    mutating func submitReceipt(appleID: String, account: String) async throws {
        guard let chain = chainOf[appleID] else { return }
        let receipt = try await e.control.receipt(appleID: appleID, bundleID: E.bundleID)
        let arrivals = try chainTransactions(chain)
        let at = now
        let (client, name) = server()
        let answer = try await client.call(
            .post, "/v1/receipts", key: e.key, json: ["account_id": account, "receipt_data": receipt.receiptData])
        guard try accepted(answer.status, answer.json, of: "POST /v1/receipts", by: account) else { return }
        log.append(
            "\(account) uploads \(appleID)'s receipt to \(name): \(answer.json.results.sorted { $0.key < $1.key })")
        let expected = applyReceipt(receipt.receiptData, chain: chain, arrivals: arrivals, by: account, at: at)
        compare(answer.json.results, with: expected, of: "\(account)'s upload")
    }

    /// Records as broken a submission's answers that differ from the model's (`ReferenceModel.apply`).
    mutating func compare(_ answered: [String: String], with expected: [String: String], of call: String) {
        guard broken == nil, answered != expected else { return }
        broken =
            "\(call) answered \(answered.sorted { $0.key < $1.key }); the model says "
            + "\(expected.sorted { $0.key < $1.key })"
    }

    /// The same account uploads the same receipt to both servers at once (the app retried on the other instance while
    /// its first request ran): SubLedger must apply it once, and both answers must be 200. The two uploads tell
    /// SubLedger the same thing, so the model does not depend on which one committed first; it is fed both.
    mutating func submitReceiptConcurrently() async throws {
        let appleID = pick(appleIDs)
        guard let chain = chainOf[appleID] else { return }
        let account = pick(accounts)
        let receipt = try await e.control.receipt(appleID: appleID, bundleID: E.bundleID)
        let arrivals = try chainTransactions(chain)
        let at = now
        let answers = try await TwoServers.both(
            e.client, e.secondClient, .post, "/v1/receipts", key: e.key,
            json: ["account_id": account, "receipt_data": receipt.receiptData])
        var applied = true
        for answer in answers {
            applied = try accepted(answer.status, answer.json, of: "POST /v1/receipts (concurrent)", by: account)
        }
        guard applied else { return }
        log.append(
            "\(account) uploads \(appleID)'s receipt to both servers at once: "
                + answers.map { "\($0.json.results.sorted { $0.key < $1.key })" }.joined(separator: " and "))
        // Both orders feed the model the same two uploads; the answers must be the first's and the second's, in
        // one order or the other.
        let first = applyReceipt(receipt.receiptData, chain: chain, arrivals: arrivals, by: account, at: at)
        let second = applyReceipt(receipt.receiptData, chain: chain, arrivals: arrivals, by: account, at: at)
        let answered = answers.map(\.json.results)
        if broken == nil, answered != [first, second], answered != [second, first] {
            broken =
                "a concurrent pair answered \(answered), which no serial order gives: the model answers "
                + "\(first) and then \(second)"
        }
    }

    /// Two accounts upload the same Apple ID's receipt at once, one to each server (two devices signed in with one
    /// Apple ID restoring together). The outcome depends on which commits first: SubLedger must end as one of the two
    /// serial orders ends (who holds each purchase and each chain) and answer as that order answers.
    mutating func submitReceiptFromTwoAccountsConcurrently() async throws {
        let appleID = pick(appleIDs)
        guard let chain = chainOf[appleID] else { return }
        let pair = [pick(accounts), pick(accounts)]
        guard pair[0] != pair[1] else { return }
        let receipt = try await e.control.receipt(appleID: appleID, bundleID: E.bundleID)
        let arrivals = try chainTransactions(chain)
        let at = now
        let answers = try await TwoServers.both(
            (e.client, ["account_id": pair[0], "receipt_data": receipt.receiptData]),
            (e.secondClient, ["account_id": pair[1], "receipt_data": receipt.receiptData]),
            .post, "/v1/receipts", key: e.key)
        var applied: [Int] = []
        for (index, answer) in answers.enumerated()
        where try accepted(answer.status, answer.json, of: "POST /v1/receipts (concurrent)", by: pair[index]) {
            applied.append(index)
        }
        log.append(
            "\(pair[0]) and \(pair[1]) upload \(appleID)'s receipt at once, to servers 1 and 2: "
                + answers.map { "\($0.json.results.sorted { $0.key < $1.key })" }.joined(separator: " and "))
        let stored = try await storedHolders()
        var outcomes: [String] = []
        for order in [applied, applied.reversed()] {
            var life = self
            var answered: [Int: [String: String]] = [:]
            for index in order {
                answered[index] = life.applyReceipt(
                    receipt.receiptData, chain: chain, arrivals: arrivals, by: pair[index], at: at)
            }
            let holders = life.model.holders
            if holders == stored, order.allSatisfy({ answered[$0] == answers[$0].json.results }) {
                model = life.model
                return
            }
            outcomes.append("\(order.map { pair[$0] }) would answer \(order.map { answered[$0] ?? [:] })")
        }
        if broken == nil {
            broken = "two accounts' concurrent uploads end as no serial order does: \(outcomes.joined(separator: "; "))"
        }
    }

    /// Feeds the model an upload of `receiptData` by `account` that SubLedger applied (nil: the renewal job's check of
    /// a stored receipt), and answers what the model says the upload's answer is.
    @discardableResult
    mutating func applyReceipt(
        _ receiptData: String, chain: String, arrivals: [ReferenceModel.Arrival], by account: String?, at: Int64
    ) -> [String: String] {
        // The receipt's renewal info is observed when Apple answered SubLedger (its request_date), not at the clock's
        // instant: states signed while the clock stands still are dated after it. Asked again, Apple answers the same.
        let apple = e.control.verifyReceiptAnswer(receiptData)
        let receiptJSON = (try? JSONSerialization.jsonObject(with: Data(apple.utf8))) as? [String: Any]
        let requestDate = ((receiptJSON?["receipt"] as? [String: Any])?["request_date_ms"] as? String).flatMap {
            Int64($0)
        }
        let observed = requestDate ?? at
        // A receipt states no refund's share, and its transactions are observed when Apple answered.
        let stated = arrivals.map { arrival in
            var copy = arrival
            copy.observedAt = observed
            copy.revocationPercentage = nil
            return copy
        }
        return model.apply(
            .init(
                submitter: account, arrivals: stated,
                renewals: [chain: .init(observedAt: observed, willAutoRenew: autoRenew[chain] ?? false)]),
            now: at)
    }

    /// Whether a submission by `account` was applied (200). An erased id's must answer 410 and apply nothing; any
    /// other answer is a failure of the simulation.
    mutating func accepted(_ status: HTTPResponse.Status, _ json: [String: Any], of call: String, by account: String)
        throws -> Bool
    {
        if model.erased.contains(account) {
            guard status == .gone else {
                throw SimulationFailure("\(call) by erased \(account) answered \(status): \(json)")
            }
            log.append("\(account) (erased): \(call) answers 410")
            return false
        }
        guard status == .ok else { throw SimulationFailure("\(call) answered \(status): \(json)") }
        known.insert(account)
        return true
    }

    /// An account's StoreKit 2 app sends the latest transaction of an Apple ID's subscription.
    mutating func submitSignedTransaction() async throws {
        let appleID = pick(appleIDs)
        guard let chain = chainOf[appleID], let latest = try chainTransactions(chain).last else { return }
        let account = pick(accounts)
        let jws = try e.control.signedTransaction(latest.id)
        let at = now
        // With the key, SubLedger first reads a chain another account owns again from Apple (Get All Subscription
        // Statuses) when the policy asks whether its owner still auto-renews it; and reads the earlier transactions
        // of a chain it first hears of through a renewal (Get Transaction History).
        let contested = model.chains[chain]?.owner.map { $0 != account } ?? false
        let status = serverAPIKey && model.policy == .seedRule && contested ? try statusAnswer(chain) : nil
        let arrivals = try withEarlierTransactions([latest])
        let (client, name) = server()
        let answer = try await client.call(
            .post, "/v1/transactions", key: e.key, json: ["account_id": account, "signed_transaction": jws])
        guard try accepted(answer.status, answer.json, of: "POST /v1/transactions", by: account) else { return }
        log.append("\(account) sends \(appleID)'s signed transaction \(latest.id) to \(name): \(answer.json.results)")
        if let status {
            model.apply(status, now: at)
            signed.formUnion(status.arrivals.map(\.id))
        }
        let expected = model.apply(.init(submitter: account, arrivals: arrivals, renewals: [:]), now: at)
        compare(answer.json.results, with: expected, of: "\(account)'s signed transaction")
        signed.formUnion(arrivals.map(\.id))
    }

    mutating func toggleAutoRenew() async throws {
        let appleID = pick(appleIDs)
        guard let chain = chainOf[appleID] else { return }
        let enable = !(autoRenew[chain] ?? true)
        do {
            _ = try await e.control.setAutoRenew(chain, enabled: enable)
        } catch {
            log.append("\(appleID) cannot turn auto-renew \(enable ? "on" : "off") (\(error.code))")
            return
        }
        autoRenew[chain] = enable
        log.append("\(appleID) turns auto-renew \(enable ? "on" : "off")")
        try absorbNotifications()
    }

    /// Apple refunds an Apple ID's latest purchase: in full, or now and then prorated (1 % to 99 % of the price
    /// given back; access ends all the same).
    mutating func refund() async throws {
        let appleID = pick(appleIDs)
        guard let chain = chainOf[appleID], let latest = try chainTransactions(chain).last,
            latest.revokedAt == nil, !reversed.contains(latest.id)
        else { return }
        let percentage = chance(30) ? 1_000 * Int(1 + random.next() % 99) : nil
        do {
            _ = try await e.control.refund(latest.id, RefundRequest(percentage: percentage))
        } catch {
            log.append("Apple refuses to refund \(latest.id) (\(error.code))")
            return
        }
        log.append(
            "Apple refunds \(latest.id) (\(appleID))"
                + (percentage.map { ", prorated: \(Double($0) / 1000) % given back" } ?? ""))
        try absorbNotifications()
    }

    /// Apple reverses a refund it made (`REFUND_REVERSED`): the purchase stands again, as if never refunded.
    mutating func reverseRefund() async throws {
        let refunded = try appleIDs.compactMap { chainOf[$0] }.flatMap { try chainTransactions($0) }.filter {
            $0.revokedAt != nil
        }
        guard !refunded.isEmpty else { return }
        let transaction = pick(refunded)
        do {
            _ = try await e.control.reverseRefund(transaction.id)
        } catch {
            log.append("Apple cannot reverse the refund of \(transaction.id) (\(error.code))")
            return
        }
        reversed.insert(transaction.id)
        log.append("Apple reverses the refund of \(transaction.id)")
        try absorbNotifications()
    }

    /// The customer changes the Apple ID's subscription to another product of its group: between `pro.monthly` and
    /// `pro.plus` at once (the new period starts now, on the same chain), to or from `pro.yearly` at the next renewal.
    /// Some minutes pass first: Apple's clock never stands still, and a plan is not bought and upgraded away in one
    /// millisecond.
    mutating func changeProduct() async throws {
        let appleID = pick(appleIDs)
        guard let chain = chainOf[appleID] else { return }
        let minutes = Int64(1 + random.next() % 720)
        _ = await e.control.advanceClock(.init(minutes: minutes))
        log.append("\(minutes) minutes pass")
        try absorbNotifications()
        guard let latest = try chainTransactions(chain).last else { return }
        let target = pick(prices.keys.sorted().filter { $0 != latest.product })
        let changed: ActionResult
        do {
            changed = try await e.control.changeProduct(latest.id, to: target)
        } catch {
            log.append("\(appleID) cannot change to \(target) (\(error.code))")
            return
        }
        autoRenew[chain] = true
        log.append(
            "\(appleID) changes \(latest.product) to \(target)"
                + (changed.transactionID == latest.id ? " at the renewal" : ": \(changed.transactionID ?? "?") now"))
        try absorbNotifications()
    }

    /// Notifications lost (SubLedger unreachable: Apple retries on its schedule) or delivered again.
    mutating func setNotifications(down: Bool) async throws {
        notificationsDown = down
        await pointNotifications()
        log.append(down ? "notifications stop reaching SubLedger" : "notifications reach SubLedger again")
        try absorbNotifications()
    }

    /// Now and then, Apple's notifications go to the other server from this step on (both serve one database).
    mutating func routeNotifications() async throws {
        guard chance(20) else { return }
        notifiedServer = 3 - notifiedServer
        await pointNotifications()
        log.append("notifications go to server \(notifiedServer)")
    }

    /// Points appstore-sim's notifications at the server they go to, or nowhere while they are lost.
    func pointNotifications() async {
        let client = notifiedServer == 1 ? e.client : e.secondClient
        let path = notificationsDown ? "lost-notifications" : "v1/notifications/appstore"
        _ = await e.control.updateNotificationSettings(
            .init(defaultURL: "http://127.0.0.1:\(client.port ?? 0)/\(path)"))
    }

    /// Support merges one account into another (docs/guides/accounts.md).
    mutating func merge() async throws {
        let candidates = liveAccounts
        guard candidates.count >= 3 else { return }
        let from = pick(candidates)
        let into = pick(candidates.filter { $0 != from })
        let answer = try await MergeCall.merge(e, into: into, from: from, key: admin)
        guard answer.status == .ok else {
            throw SimulationFailure("merge \(from) into \(into) answered \(answer.status): \(answer.json)")
        }
        model.merge(from: from, into: into)
        log.append("support merges \(from) into \(into)")
    }

    /// A customer's data is erased (docs/guides/accounts.md, "Erasing an account"); an order for the erased id is
    /// refused from then on.
    mutating func erase() async throws {
        let candidates = liveAccounts
        guard candidates.count >= 2 else { return }
        let account = pick(candidates)
        guard
            let pseudonym = try await SimulationErasureCheck.erase(
                account, known: known.contains(account), bundleID: E.bundleID, productID: "pro.monthly",
                client: e.client,
                admin: admin, key: e.key)
        else {
            log.append("\(account), never seen by SubLedger, has nothing to erase (404)")
            return
        }
        model.erase(account, pseudonym: pseudonym)
        log.append("\(account) is erased (now \(pseudonym))")
    }

    // MARK: What SubLedger was told

    /// Feeds the model every notification SubLedger accepted since the last call, in the order they were created
    /// (the simulator posts one chain's notifications in that order).
    mutating func absorbNotifications() throws {
        for record in e.control.notifications() where record.delivered && !absorbed.contains(record.notificationUUID) {
            absorbed.insert(record.notificationUUID)
            let payload = try JWSPayload.decode(record.signedPayload)
            let data = payload["data"] as? [String: Any] ?? [:]
            var arrivals: [ReferenceModel.Arrival] = []
            if let signed = data["signedTransactionInfo"] as? String {
                arrivals.append(try Self.arrival(try JWSPayload.decode(signed)))
            }
            var renewals: [String: ReferenceModel.RenewalFact] = [:]
            if let signed = data["signedRenewalInfo"] as? String {
                let renewal = try JWSPayload.decode(signed)
                if let chain = renewal["originalTransactionId"] as? String {
                    let observed =
                        (renewal["signedDate"] as? NSNumber)?.int64Value
                        ?? (payload["signedDate"] as? NSNumber)?.int64Value ?? record.createdAt
                    renewals[chain] = .init(
                        observedAt: observed, willAutoRenew: (renewal["autoRenewStatus"] as? NSNumber)?.intValue == 1)
                }
            }
            log.append(
                "  SubLedger is notified: \(record.notificationType)\(record.subtype.map { "/" + $0 } ?? "") "
                    + "\(record.transactionID ?? "")")
            arrivals = try withEarlierTransactions(arrivals)
            model.apply(.init(submitter: nil, arrivals: arrivals, renewals: renewals), now: now)
            signed.formUnion(arrivals.map(\.id))
        }
    }

    /// The chain's transactions as the simulator holds them now, oldest first.
    func chainTransactions(_ chain: String) throws -> [ReferenceModel.Arrival] {
        try e.control.transactionIDs(ofChain: chain).map { id in
            try Self.arrival(try JWSPayload.decode(try e.control.signedTransaction(id)))
        }.sorted { ($0.purchase, $0.id) < ($1.purchase, $1.id) }
    }

    static func arrival(_ payload: [String: Any]) throws -> ReferenceModel.Arrival {
        func milliseconds(_ key: String) -> Int64? { (payload[key] as? NSNumber)?.int64Value }
        guard let id = payload["transactionId"] as? String, let chain = payload["originalTransactionId"] as? String,
            let purchase = milliseconds("purchaseDate"), let expires = milliseconds("expiresDate")
        else { throw SimulationFailure("a transaction without its ids or dates: \(payload)") }
        // An upgraded-from transaction's revocation date is its plan's end, not a refund (its next transaction,
        // of the new product, starts then).
        let upgraded = (payload["isUpgraded"] as? Bool ?? false) && payload["revocationReason"] == nil
        return .init(
            id: id, chain: chain, purchase: purchase, expires: expires,
            token: (payload["appAccountToken"] as? String).flatMap { $0.isEmpty ? nil : $0 },
            revokedAt: upgraded ? nil : milliseconds("revocationDate"), product: payload["productId"] as? String ?? "",
            observedAt: milliseconds("signedDate") ?? 0,
            revocationPercentage: (payload["revocationPercentage"] as? NSNumber)?.intValue)
    }

    // MARK: Invariants

    /// Who holds each transaction and each chain in SubLedger's database (nil: unclaimed, no owner).
    func storedHolders() async throws -> ReferenceModel.Holders {
        var holders = ReferenceModel.Holders()
        for row in try await e.service.pool.query("SELECT transaction_id, account_id FROM transactions") {
            holders.transactions[try row.decode(String.self, at: 0)] = try row.decode(String?.self, at: 1)
        }
        for row in try await e.service.pool.query("SELECT original_transaction_id, owner_account_id FROM chains") {
            holders.chains[try row.decode(String.self, at: 0)] = try row.decode(String?.self, at: 1)
        }
        return holders
    }

    /// Where an erased id is still stored, in any letter case, anywhere in the database: every row of every table
    /// of the schema, read as text.
    func erasedIDLeft() async throws -> String? {
        try await SimulationErasureCheck.erasedIDLeft(model.erased, in: e.service.pool)
    }

    /// The first invariant that does not hold now, if any.
    func check() async throws -> String? {
        let at = now
        // Every purchase SubLedger was told of is held by the account the model credits (or by none).
        let credits = model.credits
        let holders = try await storedHolders()
        let stored = holders.transactions
        for (id, account) in credits.sorted(by: { $0.key < $1.key }) {
            guard let held = stored[id] else { return "transaction \(id) was told to SubLedger but is not stored" }
            if held != account {
                return "transaction \(id) is credited to \(held ?? "nobody"); the model says \(account ?? "nobody")"
            }
        }
        for id in stored.keys where credits[id] == nil {
            return "SubLedger stores transaction \(id), which the model was never told of"
        }
        // Each chain is owned by the account the model names (or by none).
        for (id, owner) in model.holders.chains.sorted(by: { $0.key < $1.key }) where holders.chains[id] != owner {
            return "chain \(id) is owned by \(holders.chains[id].map { $0 ?? "nobody" } ?? "no stored chain"); "
                + "the model says \(owner ?? "nobody")"
        }
        // Each credited purchase has exactly one grant or extend entry.
        var entries: [String: Int64] = [:]
        for row in try await e.service.pool.query(
            "SELECT transaction_id, count(*) FROM ledger_entries WHERE kind IN ('grant', 'extend') GROUP BY 1")
        {
            entries[try row.decode(String.self, at: 0)] = try row.decode(Int64.self, at: 1)
        }
        for (id, account) in credits where (entries[id] ?? 0) != (account == nil ? 0 : 1) {
            return "transaction \(id) has \(entries[id] ?? 0) grant/extend entries"
        }
        // Each purchase's events are the ones the model expects: one `entitlement.granted` (a chain's first purchase)
        // or `entitlement.extended` (a later one) once it is credited, none while it waits; one `entitlement.revoked`
        // for a refund that ended a credited period early, never two. (A transfer's events, reason `transferred`, are
        // the chain's, not a purchase's.)
        if let broken = try await checkEventTypes(credits) { return broken }
        // Each account's entitlement read says what the model says.
        for account in liveAccounts {
            let read = try await e.entitlements(account)
            let entitled = read.entitlementIDs == ["pro"]
            if entitled != model.isEntitled(account, at: at) {
                let held = model.chains.values.filter { $0.owner == account }.map { chain in
                    "\(chain.id): "
                        + chain.transactions.values.sorted { $0.arrival.id < $1.arrival.id }.map {
                            "\($0.arrival.id) \($0.arrival.purchase)..\($0.arrival.expires) by \($0.account ?? "-")"
                                + ($0.arrival.revokedAt.map { " revoked \($0)" } ?? "")
                        }.joined(separator: ", ")
                }
                return "\(account) reads \(read.entitlementIDs) at \(at); the model says "
                    + "\(entitled ? "nothing" : "pro") (its chains: \(held))"
            }
        }
        for account in model.erased.sorted() {
            let read = try await e.client.call(.get, "/v1/accounts/\(account)/entitlements", key: e.key)
            if read.status != .gone { return "erased \(account)'s entitlement read answers \(read.status)" }
        }
        // Each account's webhook events are numbered 1, 2, 3 … without a gap.
        var sequences: [String: [Int64]] = [:]
        for row in try await e.service.pool.query(
            "SELECT account_id, account_sequence FROM webhook_events WHERE account_id IS NOT NULL ORDER BY 1, 2")
        {
            sequences[try row.decode(String.self, at: 0), default: []].append(try row.decode(Int64.self, at: 1))
        }
        for (account, numbers) in sequences where numbers != Array(1...Int64(numbers.count)) {
            return "\(account)'s webhook events are numbered \(numbers)"
        }
        return nil
    }
}

extension Life {
    /// The revenue and MRR reports over the whole world against the simulator's records (`SimulationMoney`): every
    /// purchase SubLedger got a signed statement of is a sale at appstore-sim's price of its product in the world's
    /// currency, whoever holds it or while it waits (the test catalog states no price, so one seen only in receipts is
    /// unpriced and in no amount); each of those refunded and not reversed, however SubLedger learnt of the refund,
    /// gives back its price, or the share a signed statement gave; one whose period the chain's next purchase, of
    /// another product, cut short gives back the unused part; Apple's commission is 30 %, 15 % after a year of paid
    /// service; MRR at each month's end is each chain's priced purchase in force.
    func checkRevenue() async throws -> String? {
        _ = try await ReportProjector(pool: e.service.pool).projectAll()
        var sales = model.chains.values.flatMap(\.transactions.values).map { held in
            SimulationMoney.Sale(
                id: held.arrival.id, subscriber: held.arrival.chain, purchase: held.arrival.purchase,
                expires: held.arrival.expires,
                price: signed.contains(held.arrival.id) ? prices[held.arrival.product] : nil,
                currency: price.currency, revokedAt: held.arrival.revokedAt, product: held.arrival.product,
                creditsUnusedTime: true, refundShare: held.percentage)
        }
        var rates: [String: Int64] = [:]
        for chain in Dictionary(grouping: sales, by: \.subscriber).values {
            rates.merge(SimulationMoney.appStoreRates(chain)) { $1 }
        }
        for index in sales.indices { sales[index].commissionRate = rates[sales[index].id] ?? 3_000 }
        let end = Date(timeIntervalSince1970: Double(now) / 1000 + 2 * 86_400)
        let to = end.formatted(.iso8601.year().month().day())
        let answer = try await e.client.call(
            .get, "/v1/admin/reports/revenue?from=2024-12-01&to=\(to)&by=month", key: admin)
        guard answer.status == .ok else { return "the revenue report answered \(answer.status): \(answer.json)" }
        let expected = SimulationMoney.totals(sales)
        let reported = SimulationMoney.reportedTotals(answer.json)
        if reported != expected {
            return "the revenue report's totals are \(reported); the simulator's records give \(expected)"
        }
        let mrr = try await e.client.call(
            .get, "/v1/admin/reports/mrr?from=2025-01-01&to=\(SimulationMoney.monthAfter(now))", key: admin)
        guard mrr.status == .ok else { return "the MRR report answered \(mrr.status): \(mrr.json)" }
        return SimulationMoney.mrrDifference(
            expected: SimulationMoney.mrr(sales, firstMonth: (2025, 1), now: now),
            reported: SimulationMoney.reportedMRR(mrr.json))
    }

    /// The entitlement events each transaction caused, against the model's credits.
    func checkEventTypes(_ credits: [String: String?]) async throws -> String? {
        var told: [String: [String]] = [:]
        for row in try await e.service.pool.query(
            """
            SELECT body::jsonb -> 'data' ->> 'transaction_id', event_type || '/' || coalesce(body::jsonb -> 'data' ->> 'reason', '')
            FROM webhook_events
            WHERE event_type IN ('entitlement.granted', 'entitlement.extended', 'entitlement.revoked', 'entitlement.restored')
            ORDER BY created_at, event_id
            """)
        {
            guard let id = try row.decode(String?.self, at: 0) else { continue }
            told[id, default: []].append(try row.decode(String.self, at: 1))
        }
        for chain in model.chains.values {
            for (id, held) in chain.transactions.sorted(by: { $0.key < $1.key }) {
                let events = told[id] ?? []
                let credit = events.filter { $0.hasSuffix("/purchase") || $0.hasSuffix("/renewal") }
                let expected = id == chain.id ? "entitlement.granted/purchase" : "entitlement.extended/renewal"
                if credits[id] != nil, held.account != nil {
                    if credit != [expected] {
                        return "transaction \(id) was told as \(credit); the model expects [\(expected)]"
                    }
                } else if !credit.isEmpty {
                    return "transaction \(id) waits unclaimed, yet was told as \(credit)"
                }
                let revoked = events.filter { $0 == "entitlement.revoked/refund" }
                if revoked.count > 1 { return "transaction \(id) was revoked \(revoked.count) times: \(revoked)" }
                if held.account != nil, let at = held.arrival.revokedAt, at < held.arrival.expires,
                    revoked != ["entitlement.revoked/refund"]
                {
                    return "transaction \(id), refunded at \(at) before its end, was told as \(revoked)"
                }
                // A refund told as a revocation and reversed since is told as a restoration, once and after it; no
                // other is.
                let restored = events.filter { $0.hasPrefix("entitlement.restored/") }
                let reversed = held.revocation != nil && held.arrival.revokedAt == nil
                let inOrder =
                    (events.lastIndex { $0.hasPrefix("entitlement.restored/") } ?? .max)
                    > (events.firstIndex(of: "entitlement.revoked/refund") ?? -1)
                if restored.count != (reversed && revoked.count == 1 ? 1 : 0) || !inOrder {
                    return "transaction \(id) was told as \(events); the model has its refund "
                        + (reversed ? "reversed" : held.revocation == nil ? "never made" : "in force")
                }
            }
        }
        return nil
    }
}

extension Life {
    /// What Get All Subscription Statuses answers now for `chain`, as an input with no submitter: the chain's latest
    /// transaction and its renewal info, signed at the chain's latest signing instant or later (as appstore-sim signs
    /// a transaction asked for now).
    func statusAnswer(_ chain: String) throws -> ReferenceModel.Input? {
        guard let latest = try chainTransactions(chain).last else { return nil }
        let payload = try JWSPayload.decode(try e.control.signedTransaction(latest.id))
        let observed = (payload["signedDate"] as? NSNumber)?.int64Value ?? now
        return .init(
            submitter: nil, arrivals: [latest],
            renewals: [chain: .init(observedAt: observed, willAutoRenew: autoRenew[chain] ?? false)])
    }

    /// `arrivals` with, when SubLedger holds the Server API key, the earlier transactions of each chain it first hears
    /// of through a later transaction (its first transaction not among them): Get Transaction History up to it, its
    /// own millisecond included (the simulator's clock stands still between steps, so two purchases can share one).
    func withEarlierTransactions(_ arrivals: [ReferenceModel.Arrival]) throws -> [ReferenceModel.Arrival] {
        guard serverAPIKey else { return arrivals }
        var result = arrivals
        for (chain, arrived) in Dictionary(grouping: arrivals, by: \.chain).sorted(by: { $0.key < $1.key })
        where model.chains[chain] == nil && !arrived.contains(where: { $0.id == chain }) {
            let first = arrived.map(\.purchase).min() ?? 0
            let ids = Set(arrived.map(\.id))
            result += try chainTransactions(chain).filter { $0.purchase <= first && !ids.contains($0.id) }
        }
        return result
    }

    /// The renewal job runs one cycle (`subledger poll --once`): each chain due is checked with Apple, by its stored
    /// receipt (verifyReceipt) or, for a chain known only from StoreKit 2, through the App Store Server API (Get All
    /// Subscription Statuses). What Apple answered is applied with no submitter; the model is fed the same answers.
    mutating func runRenewalJob() async throws {
        let checked = CheckedChains()
        let report = try await e.renewalJob { chain, applied in
            guard applied != nil else { return }
            await checked.add(chain.key.chainID, receipt: chain.route == .appStoreReceipt ? chain.receiptBody : nil)
        }.runCycle()
        let polled = await checked.all.sorted { $0.chain < $1.chain }
        log.append(
            "the renewal job checks \(polled.map { "\($0.chain) (\($0.receipt == nil ? "Server API" : "receipt"))" }): "
                + "\(report)")
        if report.errors > 0 { throw SimulationFailure("the renewal job failed on \(report.errors) chains") }
        for (chain, receipt) in polled {
            let at = now
            if let receipt {
                applyReceipt(receipt, chain: chain, arrivals: try chainTransactions(chain), by: nil, at: at)
            } else if let status = try statusAnswer(chain) {
                model.apply(status, now: at)
                signed.formUnion(status.arrivals.map(\.id))
            }
        }
    }

    /// Support moves a customer onto SubLedger with `subledger import`: a one-row file naming an account and an Apple
    /// ID's chain, by a receipt (verifyReceipt) or, with the key, by its original transaction id (history and
    /// statuses from the App Store Server API). The row is applied as that account's submission under the app's
    /// policy, and reports `owned_by_another_account` exactly when the chain stays with another account
    /// (docs/reference/cli.md); a row naming an erased id is refused with `account_erased`.
    mutating func importRow() async throws {
        let appleID = pick(appleIDs)
        guard let chain = chainOf[appleID] else { return }
        let account = pick(accounts)
        let receipt =
            !serverAPIKey || chance(50)
            ? try await e.control.receipt(appleID: appleID, bundleID: E.bundleID).receiptData : nil
        let csv =
            "account_id,original_transaction_id,receipt_data,environment\n"
            + "\(account),\(receipt == nil ? chain : ""),\(receipt ?? ""),Production\n"
        let arrivals = try chainTransactions(chain)
        let at = now
        let summary = try await e.importFile(csv)
        let failure = summary.failures.first.map { "\($0.reason.code): \($0.reason.message)" }
        let row = "import of \(appleID)'s chain \(chain) for \(account) (by \(receipt == nil ? "id" : "receipt"))"
        log.append("\(row): \(summary.progress.rowsSkipped > 0 ? "skipped, imported before" : failure ?? "done")")
        if summary.progress.rowsSkipped > 0 { return }
        if model.erased.contains(account) {
            if summary.failures.first?.reason.code != "account_erased", broken == nil {
                broken = "the \(row), an erased id, reported \(failure ?? "done") rather than account_erased"
            }
            return
        }
        let owned = summary.failures.first?.reason.code == "owned_by_another_account"
        if let failure, !owned { throw SimulationFailure("the \(row) failed: \(failure)") }
        known.insert(account)
        if let receipt {
            applyReceipt(receipt, chain: chain, arrivals: arrivals, by: account, at: at)
        } else {
            let status = try statusAnswer(chain).unwrap()
            model.apply(.init(submitter: account, arrivals: arrivals, renewals: status.renewals), now: at)
            signed.formUnion(arrivals.map(\.id))
        }
        let keptElsewhere = model.chains[chain]?.owner != model.canonical(account)
        if owned != keptElsewhere, broken == nil {
            broken =
                "the \(row) reported \(failure ?? "done"); the model says the chain is "
                + "\(model.chains[chain]?.owner ?? "nobody")'s"
        }
    }
}

/// The chains one renewal job cycle checked, and the stored receipt each was checked by (nil: the Server API).
private actor CheckedChains {
    private(set) var all: [(chain: String, receipt: String?)] = []
    func add(_ chain: String, receipt: String?) { all.append((chain, receipt)) }
}

/// A failure of the simulation itself (an answer it cannot go on from), not an invariant.
struct SimulationFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A JWS's payload as JSON, read without verifying it: the test reads what the simulator posted.
enum JWSPayload {
    static func decode(_ jws: String) throws -> [String: Any] {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw SimulationFailure("not a JWS") }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let bytes = Data(base64Encoded: base64),
            let object = try JSONSerialization.jsonObject(with: bytes) as? [String: Any]
        else { throw SimulationFailure("a JWS payload that is not a JSON object") }
        return object
    }
}

/// `POST /v1/accounts/{into}/merge` with a support key.
enum MergeCall {
    static func merge(_ e: EndToEndHarness, into: String, from: String, key: String) async throws -> (
        status: HTTPResponse.Status, json: [String: Any]
    ) {
        let answer = try await e.client.call(
            .post, "/v1/accounts/\(into)/merge", key: key, json: ["bundle_id": EndToEndHarness.bundleID, "from": from])
        return (answer.status, answer.json)
    }
}

extension Optional {
    fileprivate func unwrap() throws -> Wrapped {
        guard let self else { throw SimulationFailure("a value the simulation needs is missing") }
        return self
    }
}
