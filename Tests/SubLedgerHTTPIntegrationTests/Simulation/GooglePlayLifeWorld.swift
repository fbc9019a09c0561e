import Foundation
import GooglePlay
import GooglePlaySimulator
import HTTPTypes
import HummingbirdTesting
import PostgresLibPQ
import SeededRandom
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerUseCases

/// One simulated Google Play world, generated from a seed: an app under one ownership policy, a few Google accounts
/// shared by a few of the app's accounts, and a life of purchases, re-signups, restores, renewals, cancellations,
/// refunds, lost and redelivered real-time developer notifications, merges and erasures, driven through SubLedger's
/// HTTP API with play-sim as Google Play (its Pub/Sub pushes posted to `/v1/notifications/google`).
///
/// After every step SubLedger's database and answers are compared with `GooglePlayReferenceModel`, fed what SubLedger
/// read from Google for each input in the order it took them; the first disagreement ends the world and comes back
/// with the steps that led to it and the plan through the failing step.
///
/// As in `CustomerLifeWorld`, the seed draws the setup (the policy, the Google accounts, the app's accounts) and the
/// plan is the life: each step an action and its own entropy, so any subsequence of a plan is a life too and a
/// failing plan can be shrunk.
struct GooglePlayLifeWorld {
    typealias G = GooglePlayPurchaseEndToEndTests
    /// One step of a life: an action of the table in `PlayLife.act(roll:)` and its entropy.
    typealias Step = SimulationStep

    /// The world's setup and, through the harness, play-sim's.
    let seed: UInt64
    /// The world's life, step by step.
    let plan: [Step]

    /// The world of `seed` with `steps` steps drawn from it.
    init(seed: UInt64, steps: Int) {
        self.init(seed: seed, plan: Self.plan(seed: seed, steps: steps))
    }

    /// The world of `seed` living exactly `plan` (a shrunk reproduction replays this way).
    init(seed: UInt64, plan: [Step]) {
        self.seed = seed
        self.plan = plan
    }

    /// The steps `seed` draws, apart from the setup's draws.
    static func plan(seed: UInt64, steps: Int) -> [Step] { SimulationStep.plan(seed: seed, steps: steps) }

    /// What ended a world early: the invariant broken, at which step, the steps so far, and the plan through the
    /// failing step.
    struct Violation: Error, CustomStringConvertible {
        var seed: UInt64
        var step: Int
        var invariant: String
        var log: [String]
        var plan: [Step] = []
        var description: String {
            "Google Play world \(seed), step \(step): \(invariant)\nsteps (replay: SIMULATION_SEEDS=\(seed),):\n"
                + log.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
                + "\nas a plan: GooglePlayLifeWorld(seed: \(seed), plan: [\(plan.map(\.description).joined(separator: ", "))])"
        }
    }

    /// Runs the world; nil when every invariant held after every step, else the first violation.
    func run() async throws -> Violation? {
        do {
            let price = SimulationMoney.price(seed: seed)
            try await G.run(pushes: true, secondServer: true, price: (price.milli * 1_000, price.currency)) { h in
                var life = try await PlayLife(seed: seed, h: h, price: price)
                var violation = try await life.live(plan: plan)
                if let step = violation?.step { violation?.plan = Array(plan.prefix(step + 1)) }
                if ProcessInfo.processInfo.environment["SIMULATION_VERBOSE"] != nil {
                    print("Google Play world \(seed):\n" + life.log.map { "  " + $0 }.joined(separator: "\n"))
                }
                if let violation { throw violation }
            }
        } catch let violation as Violation {
            return violation
        }
        return nil
    }
}

/// The running state of one Google Play world.
private struct PlayLife {
    typealias G = GooglePlayPurchaseEndToEndTests
    typealias Model = GooglePlayReferenceModel

    let seed: UInt64
    let h: G.Harness
    let admin: String
    /// What Google charges for the world's subscription (`SimulationMoney.price(seed:)`).
    let price: (milli: Int64, currency: String)
    var random: SplitMix64
    var model: Model
    var googleAccounts: [String] = []
    var accounts: [String] = []
    /// Google account → its newest purchase token.
    var newest: [String: String] = [:]
    /// Token → when it was bought, the obfuscated account id it carries, the token that replaced it.
    var boughtAt: [String: Int64] = [:]
    var hints: [String: String] = [:]
    var successor: [String: String] = [:]
    /// Tokens SubLedger has read (a submission, a notification, or as an earlier link of one).
    var met: Set<String> = []
    var absorbed: Set<String> = []
    var notificationsDown = false
    /// The server play-sim's pushes go to (`TwoServers`): 1 or 2.
    var notifiedServer = 1
    /// An invariant a step's own answers broke (a submission answered other than the model), reported after the step.
    var broken: String?
    var known: Set<String> = []
    var log: [String] = []

    init(seed: UInt64, h: G.Harness, price: (milli: Int64, currency: String)) async throws {
        self.seed = seed
        self.h = h
        self.price = price
        random = SplitMix64(seed: seed)
        let policy = Model.Policy.allCases[Int(random.next() % 3)]
        model = Model(policy: policy)
        guard let ownership = OwnershipPolicy(rawValue: policy.rawValue) else {
            throw SimulationFailure("no ownership policy \(policy.rawValue)")
        }
        try await GooglePlayOwnershipPolicyEndToEndTests.apply(ownership, h)
        admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "simulation").secret
        for index in 0..<(2 + Int(random.next() % 2)) { googleAccounts.append("google-\(index)") }
        for index in 0..<(3 + Int(random.next() % 2)) { accounts.append("gp-\(seed)-\(index)") }
        log.append("policy \(policy.rawValue); Google accounts \(googleAccounts); accounts \(accounts)")
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
    /// The server a submission goes to, of the world's two on one database (`TwoServers`), and its name for the log.
    mutating func server() -> (client: any TestClientProtocol, name: String) {
        chance(50) ? (h.client, "server 1") : (h.secondClient ?? h.client, "server 2")
    }
    var now: Int64 { h.sim.control.clock().now }
    var liveAccounts: [String] { accounts.filter { model.current($0) == $0 && !model.erased.contains($0) } }

    mutating func live(plan: [GooglePlayLifeWorld.Step]) async throws -> GooglePlayLifeWorld.Violation? {
        let steps = plan.count
        for (step, choice) in plan.enumerated() {
            // Every choice of this step comes from its own entropy: leaving out an earlier step changes none of it.
            random = SplitMix64(seed: choice.entropy)
            do {
                try await routeNotifications()
                try await act(roll: UInt64(choice.kind) % 100)
                // `serve` acknowledges what it credited every few seconds.
                _ = try await h.sender.runCycle()
            } catch let failure as SimulationFailure {
                return .init(seed: seed, step: step, invariant: "the simulation cannot go on: \(failure)", log: log)
            }
            if let broken { return .init(seed: seed, step: step, invariant: broken, log: log) }
            if let broken = try await check() { return .init(seed: seed, step: step, invariant: broken, log: log) }
        }
        // The end: pushes reach SubLedger again, and Pub/Sub's retries (at most ten minutes apart) arrive.
        if notificationsDown { try await setNotifications(down: false) }
        _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(hours: 1))
        try absorb()
        log.append("end: notifications delivered, an hour later")
        if let broken = try await check() { return .init(seed: seed, step: steps, invariant: broken, log: log) }
        if let leak = try await erasedIDLeft() { return .init(seed: seed, step: steps, invariant: leak, log: log) }
        let verification = try await LedgerStore(pool: h.pool).verifyLedgerChain(appID: nil, since: nil)
        if let first = verification.breaks.first {
            return .init(seed: seed, step: steps, invariant: "ledger verify: \(first)", log: log)
        }
        if let broken = try await checkRevenue() { return .init(seed: seed, step: steps, invariant: broken, log: log) }
        return nil
    }

    /// The revenue and MRR reports over the whole world against play-sim's records (`SimulationMoney`), exactly, in
    /// the world's currency: every order SubLedger was told of a sale at the base plan's price, whoever holds it or
    /// while it waits; a voided order gives its whole price back, and a replaced one nothing (Google carries its
    /// remaining value over as time); Google's service fee on a subscription is 15 %; MRR at each month's end is each
    /// lineage's order in force, each order's period as Google stated it when SubLedger last read it (a revocation
    /// ends a token's period, so a voided order's month is normalized from what is left of it), a replaced token's
    /// ended by the re-signup's start.
    func checkRevenue() async throws -> String? {
        _ = try await ReportProjector(pool: h.pool).projectAll()
        let sales = model.chains.values.flatMap { chain in
            chain.credits.values.map { credit in
                SimulationMoney.Sale(
                    id: credit.order.id, subscriber: chain.id, purchase: credit.order.start, expires: credit.order.end,
                    price: price.milli, currency: price.currency, commissionRate: 1_500,
                    revokedAt: credit.order.voidedAt)
            }
        }
        let first = Date(timeIntervalSince1970: Double(sales.map(\.purchase).min() ?? now) / 1000)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let month = calendar.dateComponents([.year, .month], from: first)
        let from = String(format: "%04d-%02d-01", month.year ?? 2025, month.month ?? 1)
        let end = Date(timeIntervalSince1970: Double(now) / 1000 + 2 * 86_400)
        let to = end.formatted(.iso8601.year().month().day())
        let answer = try await h.client.call(
            .get, "/v1/admin/reports/revenue?from=\(from)&to=\(to)&by=month", key: admin)
        guard answer.status == .ok else { return "the revenue report answered \(answer.status): \(answer.json)" }
        let expected = SimulationMoney.totals(sales)
        let reported = SimulationMoney.reportedTotals(answer.json)
        if reported != expected {
            return "the revenue report's totals are \(reported); play-sim's records give \(expected)"
        }
        let mrr = try await h.client.call(
            .get, "/v1/admin/reports/mrr?from=\(from)&to=\(SimulationMoney.monthAfter(now))", key: admin)
        guard mrr.status == .ok else { return "the MRR report answered \(mrr.status): \(mrr.json)" }
        guard
            let difference = SimulationMoney.mrrDifference(
                expected: SimulationMoney.mrr(sales, firstMonth: (month.year ?? 2025, month.month ?? 1), now: now),
                reported: SimulationMoney.reportedMRR(mrr.json))
        else { return nil }
        var stored: [String] = []
        for row in try await h.pool.query(
            """
            SELECT transaction_id, (extract(epoch FROM purchase_date) * 1000)::bigint,
                   (extract(epoch FROM expires_date) * 1000)::bigint, coalesce(amount_milliunits, -1)
            FROM transaction_amounts ORDER BY purchase_date, transaction_id
            """)
        {
            stored.append(
                "\(try row.decode(String.self, at: 0)) \(try row.decode(Int64.self, at: 1))"
                    + "..\(try row.decode(Int64?.self, at: 2) ?? -1) \(try row.decode(Int64.self, at: 3))")
        }
        let orders = sales.sorted { ($0.purchase, $0.id) < ($1.purchase, $1.id) }.map {
            "\($0.id) \($0.purchase)..\($0.expires)" + ($0.revokedAt.map { " voided \($0)" } ?? "")
        }
        return "\(difference) (SubLedger's orders: \(stored); play-sim's: \(orders))"
    }

    // MARK: Steps

    mutating func act(roll: UInt64) async throws {
        // A second passes between two steps, as between a customer's actions: no two steps share an instant.
        _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(seconds: 1))
        try absorb()
        switch roll {
        case 0..<26: try await buy()
        case 26..<40: try await submit(googleAccount: pick(googleAccounts), account: pick(accounts))
        case 40..<43: try await submitConcurrently()
        case 43..<46: try await submitFromTwoAccountsConcurrently()
        case 46..<54: try await toggleAutoRenew()
        case 54..<72:
            let days = Int64(1 + random.next() % 40)
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: days))
            log.append("the clock advances \(days) days")
            try absorb()
        case 72..<78: try await refund()
        case 78..<88: try await setNotifications(down: !notificationsDown)
        case 88..<95: try await merge()
        default: try await erase()
        }
    }

    /// A customer subscribes on a Google account for an account, half the time with that account's order token as the
    /// obfuscated account id: a new purchase when the Google account has no running subscription, a re-signup (a new
    /// token linked to the cancelled one) while a cancelled one still runs. The app usually submits the token at once.
    mutating func buy() async throws {
        // Mostly a Google account whose subscription is not running (a running one cannot be bought again).
        var free: [String] = []
        for google in googleAccounts where try newest[google].map({ try h.sim.control.describe($0).state }) != "active"
        {
            free.append(google)
        }
        let google = chance(80) && !free.isEmpty ? pick(free) : pick(googleAccounts)
        let account = pick(liveAccounts)
        var token: String?
        if chance(50) {
            let order = try await h.client.call(
                .post, "/v1/orders", key: h.key, json: ["account_id": account, "product_id": "pro"])
            guard order.status == .created, let made = order.json["app_account_token"] as? String else {
                throw SimulationFailure("POST /v1/orders answered \(order.status): \(order.json)")
            }
            model.recordOrder(token: made, account: account)
            known.insert(account)
            token = made
        }
        let at = now
        let bought: PurchaseDescription
        let previous = try newest[google].map { try h.sim.control.describe($0) }
        switch previous?.state {
        case "active"?, "in_grace_period"?:
            log.append("\(google) already subscribes: nothing to buy")
            return
        case "canceled"?:
            let old = try previous.unwrapped().purchaseToken
            bought = try await h.sim.control.changePlan(
                old, ChangePlanRequest(productId: "pro", basePlanId: "monthly", obfuscatedExternalAccountId: token))
            successor[old] = bought.purchaseToken
            hints[bought.purchaseToken] = token ?? hints[old]
        default:
            bought = try await h.sim.control.purchase(
                PurchaseRequest(
                    packageName: G.packageName, productId: "pro", basePlanId: "monthly",
                    obfuscatedExternalAccountId: token))
            hints[bought.purchaseToken] = token
        }
        boughtAt[bought.purchaseToken] = at
        newest[google] = bought.purchaseToken
        log.append(
            "\(google) buys \(bought.orderId) for \(account)\(token == nil ? " without a token" : " with its order's token")"
                + (bought.linkedPurchaseToken == nil ? "" : " (a re-signup, linked)"))
        try absorb()
        if chance(75) { try await submit(googleAccount: google, account: chance(80) ? account : pick(accounts)) }
    }

    /// `account`, signed in on a phone with `googleAccount`, submits its newest purchase token.
    mutating func submit(googleAccount: String, account: String) async throws {
        guard let token = newest[googleAccount] else { return }
        let state = try h.sim.control.describe(token)
        // Google forgets a subscription 60 days after it expired; the app no longer sees it.
        if let expiry = state.expiryTime, now - expiry > 50 * 86_400_000 { return }
        let (client, name) = server()
        let answer = try await client.call(
            .post, "/v1/purchases/google", key: h.key,
            json: [
                "account_id": account, "package_name": G.packageName, "product_id": "pro", "purchase_token": token,
            ])
        if model.erased.contains(account) {
            guard answer.status == .gone else {
                throw SimulationFailure("a submission by erased \(account) answered \(answer.status): \(answer.json)")
            }
            log.append("\(account) (erased) submits \(googleAccount)'s token: 410")
            return
        }
        guard answer.status == .ok else {
            throw SimulationFailure("POST /v1/purchases/google answered \(answer.status): \(answer.json)")
        }
        known.insert(account)
        let results = (answer.json["transactions"] as? [[String: Any]] ?? []).map {
            "\($0["transaction_id"] ?? "?") \($0["result"] ?? "?")"
        }
        log.append("\(account) submits \(googleAccount)'s token \(state.orderId) to \(name): \(results)")
        let expected = model.apply(try reading(of: token, submitter: account), now: now)
        compare(answer.json.results, with: expected, of: "\(account)'s submission")
        try absorb()
    }

    /// Records as broken a submission's answers that differ from the model's (`GooglePlayReferenceModel.answers`).
    mutating func compare(_ answered: [String: String], with expected: [String: String], of call: String) {
        guard broken == nil, answered != expected else { return }
        broken =
            "\(call) answered \(answered.sorted { $0.key < $1.key }); the model says "
            + "\(expected.sorted { $0.key < $1.key })"
    }

    /// Feeds the model two submissions of `token`, `first`'s then `second`'s, that SubLedger took at once, and answers
    /// the answers this serial order gives each: one for `first`, and for `second` one or two. Both servers may have
    /// read the chain before either committed: then `second`'s answer speaks of the orders `first`'s does (those the
    /// chain did not hold yet), as the chain stands after both.
    mutating func applyPair(token: String, first: String, second: String) throws -> (
        first: [String: String], second: [[String: String]]
    ) {
        let early = try reading(of: token, submitter: first)
        let spoken = model.spokenOf(early)
        let firstAnswer = model.apply(early, now: now)
        let serial = try reading(of: token, submitter: second)
        let secondAnswer = model.apply(serial, now: now)
        let alikeAnswer = model.answers(of: spoken, in: early.chain, to: second)
        return (firstAnswer, alikeAnswer == secondAnswer ? [secondAnswer] : [secondAnswer, alikeAnswer])
    }

    /// The same account submits a Google account's newest token to both servers at once (the app retried on the other
    /// instance while its first request ran): both must answer 200 and SubLedger must credit each order once. The
    /// two submissions tell SubLedger the same thing, so the model does not depend on which one committed first; it
    /// is fed both, as two readings one after the other.
    mutating func submitConcurrently() async throws {
        let google = pick(googleAccounts)
        let account = pick(accounts)
        guard let token = newest[google] else { return }
        let state = try h.sim.control.describe(token)
        if let expiry = state.expiryTime, now - expiry > 50 * 86_400_000 { return }
        let answers = try await TwoServers.both(
            h.client, h.secondClient ?? h.client, .post, "/v1/purchases/google", key: h.key,
            json: [
                "account_id": account, "package_name": G.packageName, "product_id": "pro", "purchase_token": token,
            ])
        if model.erased.contains(account) {
            guard answers.allSatisfy({ $0.status == .gone }) else {
                throw SimulationFailure(
                    "concurrent submissions by erased \(account) answered \(answers.map { "\($0.status) \($0.json)" })")
            }
            log.append("\(account) (erased) submits \(google)'s token to both servers at once: 410 twice")
            return
        }
        guard answers.allSatisfy({ $0.status == .ok }) else {
            throw SimulationFailure(
                "concurrent POST /v1/purchases/google answered \(answers.map { "\($0.status) \($0.json)" })")
        }
        known.insert(account)
        let results = answers.map { answer in
            (answer.json["transactions"] as? [[String: Any]] ?? []).map {
                "\($0["transaction_id"] ?? "?") \($0["result"] ?? "?")"
            }
        }
        log.append("\(account) submits \(google)'s token \(state.orderId) to both servers at once: \(results)")
        // Both orders feed the model the same two submissions; the answers must be the first's and the second's, in
        // one order or the other.
        let (first, seconds) = try applyPair(token: token, first: account, second: account)
        let answered = answers.map(\.json.results)
        let serial = seconds.flatMap { [[first, $0], [$0, first]] }
        if broken == nil, !serial.contains(answered) {
            broken =
                "a concurrent pair answered \(answered), which no serial order gives: the model answers \(first) "
                + "and then \(seconds.map { "\($0)" }.joined(separator: " or "))"
        }
        try absorb()
    }

    /// Two accounts submit a Google account's newest token at once, one to each server (two phones signed in with one
    /// Google account restoring together). The outcome depends on which commits first: SubLedger must end as one of
    /// the two serial orders ends (who holds each order and each chain) and answer as that order answers.
    mutating func submitFromTwoAccountsConcurrently() async throws {
        let google = pick(googleAccounts)
        let pair = [pick(accounts), pick(accounts)]
        guard pair[0] != pair[1], let token = newest[google] else { return }
        let state = try h.sim.control.describe(token)
        if let expiry = state.expiryTime, now - expiry > 50 * 86_400_000 { return }
        func body(_ account: String) -> [String: String] {
            ["account_id": account, "package_name": G.packageName, "product_id": "pro", "purchase_token": token]
        }
        let answers = try await TwoServers.both(
            (h.client, body(pair[0])), (h.secondClient ?? h.client, body(pair[1])), .post, "/v1/purchases/google",
            key: h.key)
        var applied: [Int] = []
        for (index, answer) in answers.enumerated() {
            if model.erased.contains(pair[index]) {
                guard answer.status == .gone else {
                    throw SimulationFailure(
                        "a submission by erased \(pair[index]) answered \(answer.status): \(answer.json)")
                }
                continue
            }
            guard answer.status == .ok else {
                throw SimulationFailure(
                    "concurrent POST /v1/purchases/google answered \(answer.status): \(answer.json)")
            }
            known.insert(pair[index])
            applied.append(index)
        }
        log.append(
            "\(pair[0]) and \(pair[1]) submit \(google)'s token \(state.orderId) at once, to servers 1 and 2: "
                + answers.map { answer in
                    answer.status == .ok ? "\(answer.json.results.sorted { $0.key < $1.key })" : "\(answer.status)"
                }.joined(separator: " and "))
        let stored = try await storedHolders()
        var outcomes: [String] = []
        for order in [applied, applied.reversed()] {
            var life = self
            var answered: [Int: [[String: String]]] = [:]
            if order.count == 2 {
                let (first, seconds) = try life.applyPair(token: token, first: pair[order[0]], second: pair[order[1]])
                answered = [order[0]: [first], order[1]: seconds]
            } else if let only = order.first {
                answered[only] = [life.model.apply(try life.reading(of: token, submitter: pair[only]), now: now)]
            }
            if life.model.holders == stored,
                order.allSatisfy({ answered[$0]?.contains(answers[$0].json.results) == true })
            {
                model = life.model
                met = life.met
                try absorb()
                return
            }
            outcomes.append(
                "\(order.map { pair[$0] }) would answer \(order.map { answered[$0] ?? [] }) and hold "
                    + "\(life.model.holders)")
            if order.count < 2 { break }
        }
        if broken == nil {
            broken =
                "two accounts' concurrent submissions end as no serial order does: SubLedger holds \(stored); "
                + outcomes.joined(separator: "; ")
        }
    }

    mutating func toggleAutoRenew() async throws {
        let google = pick(googleAccounts)
        guard let token = newest[google] else { return }
        let state = try h.sim.control.describe(token).state
        if state == "active" {
            _ = try await h.sim.control.cancel(token)
            log.append("\(google) turns auto-renew off")
        } else if state == "canceled" {
            _ = try await h.sim.control.restart(token)
            log.append("\(google) turns auto-renew on again")
        } else {
            return
        }
        try absorb()
    }

    mutating func refund() async throws {
        let google = pick(googleAccounts)
        guard let token = newest[google], ["active", "canceled"].contains(try h.sim.control.describe(token).state)
        else { return }
        let refunded = try await h.sim.control.refund(token, RefundRequest())
        log.append("Google refunds and revokes \(refunded.orderId) (\(google))")
        try absorb()
    }

    /// Pushes fail (SubLedger unreachable: Pub/Sub retries for seven days, ten minutes apart at most) or arrive again.
    mutating func setNotifications(down: Bool) async throws {
        notificationsDown = down
        try await pointNotifications()
        log.append(down ? "notifications stop reaching SubLedger" : "notifications reach SubLedger again")
        try absorb()
    }

    /// Now and then, play-sim's pushes go to the other server from this step on (both serve one database).
    mutating func routeNotifications() async throws {
        guard chance(20) else { return }
        notifiedServer = 3 - notifiedServer
        try await pointNotifications()
        log.append("notifications go to server \(notifiedServer)")
        try absorb()
    }

    /// Points play-sim's push subscription at the server it goes to, or nowhere while pushes fail.
    func pointNotifications() async throws {
        let client = notifiedServer == 1 ? h.client : h.secondClient ?? h.client
        let path = notificationsDown ? "lost-notifications" : "v1/notifications/google"
        _ = try await h.sim.control.updateNotificationSettings(
            NotificationSettingsUpdate(pushUrl: "http://127.0.0.1:\(client.port ?? 0)/\(path)"))
    }

    mutating func merge() async throws {
        let candidates = liveAccounts
        guard candidates.count >= 3 else { return }
        let from = pick(candidates)
        let into = pick(candidates.filter { $0 != from })
        let answer = try await h.client.call(
            .post, "/v1/accounts/\(into)/merge", key: admin, json: ["bundle_id": G.bundleID, "from": from])
        guard answer.status == .ok else {
            throw SimulationFailure("merge \(from) into \(into) answered \(answer.status): \(answer.json)")
        }
        model.merge(from: from, into: into)
        log.append("support merges \(from) into \(into)")
    }

    mutating func erase() async throws {
        let candidates = liveAccounts
        guard candidates.count >= 2 else { return }
        let account = pick(candidates)
        guard
            let pseudonym = try await SimulationErasureCheck.erase(
                account, known: known.contains(account), bundleID: G.bundleID, productID: "pro", client: h.client,
                admin: admin, key: h.key)
        else {
            log.append("\(account), never seen by SubLedger, has nothing to erase (404)")
            return
        }
        model.erase(account, pseudonym: pseudonym)
        log.append("\(account) is erased (now \(pseudonym))")
    }

    // MARK: What Google told SubLedger

    /// Feeds the model each push SubLedger acknowledged since the last call. Each control call pushes what is due
    /// once, in publish order, after its change: SubLedger read Google's state as it is now.
    mutating func absorb() throws {
        for record in h.sim.control.notifications() where record.acknowledged && !absorbed.contains(record.messageId) {
            absorbed.insert(record.messageId)
            let notification = record.notification
            if let event = notification.subscriptionNotification {
                let state = try h.sim.control.describe(event.purchaseToken)
                // Google answers 410 for a subscription that expired more than 60 days ago: nothing to read.
                if state.state == "expired", let expiry = state.expiryTime, now - expiry > 60 * 86_400_000 {
                    log.append("  SubLedger is notified: \(event.notificationType) (\(state.orderId)), gone at Google")
                    continue
                }
                log.append("  SubLedger is notified: \(event.notificationType) (\(state.orderId))")
                model.apply(try reading(of: event.purchaseToken, submitter: nil), now: now)
            } else if let voided = notification.voidedPurchaseNotification, let orderID = voided.orderId {
                try absorbVoid(orderID, token: voided.purchaseToken, eventTime: notification.eventTime)
            }
        }
    }

    /// A voided purchase notification: SubLedger lists Google's voids of the last 29 days (from an hour before the
    /// event) and revokes the order if it holds it, or, when it knows the token and the order is the token's latest,
    /// the order as Google shows it now. Anything else revokes nothing.
    mutating func absorbVoid(_ orderID: String, token: String, eventTime: Instant?) throws {
        guard let voidedAt = h.sim.control.voidedPurchases().first(where: { $0.orderId == orderID })?.voidedTime
        else { throw SimulationFailure("a voided purchase notification for \(orderID) not in the list") }
        let at = voidedAt.millisecondsSince1970
        let from = max(now - 29 * 86_400_000, (eventTime?.millisecondsSince1970 ?? at) - 3_600_000)
        let lineage = try self.lineage(of: token)
        let chain = try chainID(lineage)
        var order: Model.Order
        if at < from {
            log.append("  SubLedger is notified: \(orderID) voided, older than Google lists")
            return
        } else if let held = model.chains[chain]?.credits[orderID] {
            order = held.order
        } else if met.contains(token), try h.sim.control.describe(token).orderId == orderID,
            let current = try orders(of: [token]).last
        {
            order = current
        } else {
            log.append("  SubLedger is notified: \(orderID) voided, an order it never held")
            return
        }
        log.append("  SubLedger is notified: \(orderID) voided")
        order.voidedAt = at
        model.apply(.init(chain: chain, submitter: nil, orders: [order], autoRenews: nil), now: now)
    }

    /// The tokens from the lineage's first to `token`.
    func lineage(of token: String) throws -> [String] {
        var tokens = [token]
        while let linked = try h.sim.control.describe(tokens[0]).linkedPurchaseToken, tokens.count < 64 {
            tokens.insert(linked, at: 0)
        }
        return tokens
    }

    func chainID(_ lineage: [String]) throws -> String {
        let first = try h.sim.control.describe(lineage[0]).orderId
        return first.components(separatedBy: "..")[0]
    }

    /// What reading `token` tells SubLedger (docs/guides/google-play.md): every order of the token, and every order
    /// of the lineage's earlier tokens SubLedger had not met; when a newer token SubLedger knows replaced it, that
    /// token's latest order too, and the renewal state of the newest token read.
    mutating func reading(of token: String, submitter: String?) throws -> Model.Reading {
        var last = token
        while let next = successor[last], met.contains(next) { last = next }
        let tokens = try lineage(of: token)
        var orders: [Model.Order] = []
        for earlier in tokens.dropLast() where !met.contains(earlier) { orders += try self.orders(of: [earlier]) }
        orders += try self.orders(of: [token])
        if last != token, let latest = try self.orders(of: [last]).last { orders.append(latest) }
        met.formUnion(tokens)
        let state = try h.sim.control.describe(last).state
        let stated = [try h.sim.control.describe(token).orderId] + (last == token ? [] : orders.suffix(1).map(\.id))
        return .init(
            chain: try chainID(tokens), submitter: submitter, orders: orders,
            autoRenews: ["active", "in_grace_period", "on_hold", "paused"].contains(state), stated: stated)
    }

    /// Every order of `tokens` as Google states it now: the purchase's order from when it was bought, each renewal's
    /// from the renewal Google published, each ending where the next starts, the latest at the token's expiry.
    func orders(of tokens: [String]) throws -> [Model.Order] {
        let records = h.sim.control.notifications()
        var all: [Model.Order] = []
        for token in tokens {
            let state = try h.sim.control.describe(token)
            guard let bought = boughtAt[token], let expiry = state.expiryTime else {
                throw SimulationFailure("token \(token) has no purchase time or expiry")
            }
            let base = state.orderId.components(separatedBy: "..")[0]
            let renewals = records.filter {
                $0.notification.subscriptionNotification?.purchaseToken == token
                    && [1, 2].contains($0.notification.subscriptionNotification?.notificationType.rawValue)
            }.map(\.publishTime).sorted()
            let starts = [bought] + renewals
            let ids = [base] + renewals.indices.map { "\(base)..\($0)" }
            guard ids.last == state.orderId else {
                throw SimulationFailure("token \(token)'s orders \(ids) do not end at \(state.orderId)")
            }
            for index in ids.indices {
                all.append(
                    .init(
                        id: ids[index], start: starts[index],
                        end: index + 1 < starts.count ? starts[index + 1] : expiry, hint: hints[token]))
            }
        }
        return all
    }

    // MARK: Invariants

    /// Where an erased id is still stored, in any letter case: every row of every table, read as text.
    func erasedIDLeft() async throws -> String? {
        try await SimulationErasureCheck.erasedIDLeft(model.erased, in: h.pool)
    }

    /// Who holds each order and each chain in SubLedger's database (nil: unclaimed, no owner).
    func storedHolders() async throws -> Model.Holders {
        var holders = Model.Holders()
        for row in try await h.pool.query("SELECT transaction_id, account_id FROM transactions") {
            holders.transactions[try row.decode(String.self, at: 0)] = try row.decode(String?.self, at: 1)
        }
        for row in try await h.pool.query("SELECT original_transaction_id, owner_account_id FROM chains") {
            holders.chains[try row.decode(String.self, at: 0)] = try row.decode(String?.self, at: 1)
        }
        return holders
    }

    /// The first invariant that does not hold now, if any.
    func check() async throws -> String? {
        let at = now
        let credits = model.credits
        let holders = try await storedHolders()
        let stored = holders.transactions
        for (id, account) in credits.sorted(by: { $0.key < $1.key }) {
            guard let held = stored[id] else { return "order \(id) was read by SubLedger but is not stored" }
            if held != account {
                return "order \(id) is credited to \(held ?? "nobody"); the model says \(account ?? "nobody")"
            }
        }
        for id in stored.keys.sorted() where credits[id] == nil {
            return "SubLedger stores order \(id), which the model was never told of"
        }
        // Each lineage's chain (named by its first order id) is owned by the account the model names (or by none).
        for (id, owner) in model.holders.chains.sorted(by: { $0.key < $1.key }) where holders.chains[id] != owner {
            return "chain \(id) is owned by \(holders.chains[id].map { $0 ?? "nobody" } ?? "no stored chain"); "
                + "the model says \(owner ?? "nobody")"
        }
        var entries: [String: Int64] = [:]
        for row in try await h.pool.query(
            "SELECT transaction_id, count(*) FROM ledger_entries WHERE kind IN ('grant', 'extend') GROUP BY 1")
        {
            entries[try row.decode(String.self, at: 0)] = try row.decode(Int64.self, at: 1)
        }
        for (id, account) in credits.sorted(by: { $0.key < $1.key })
        where (entries[id] ?? 0) != (account == nil ? 0 : 1) {
            return "order \(id) has \(entries[id] ?? 0) grant/extend entries"
        }
        for account in liveAccounts {
            let entitled = try await h.entitlements(account) == ["pro"]
            if entitled != model.isEntitled(account, at: at) {
                let held = model.chains.values.filter { $0.owner == account }.map { chain in
                    "\(chain.id): "
                        + chain.credits.values.sorted { $0.order.id < $1.order.id }.map {
                            "\($0.order.id) \($0.order.start)..\($0.order.end) by \($0.account ?? "-")"
                                + ($0.order.voidedAt.map { " voided \($0)" } ?? "")
                        }.joined(separator: ", ")
                }
                return "\(account) reads \(entitled ? "pro" : "nothing") at \(at); the model says "
                    + "\(entitled ? "nothing" : "pro") (its chains: \(held))"
            }
        }
        for account in model.erased.sorted() {
            let read = try await h.client.call(.get, "/v1/accounts/\(account)/entitlements", key: h.key)
            if read.status != .gone { return "erased \(account)'s entitlement read answers \(read.status)" }
        }
        var sequences: [String: [Int64]] = [:]
        for row in try await h.pool.query(
            "SELECT account_id, account_sequence FROM webhook_events WHERE account_id IS NOT NULL ORDER BY 1, 2")
        {
            sequences[try row.decode(String.self, at: 0), default: []].append(try row.decode(Int64.self, at: 1))
        }
        for (account, numbers) in sequences.sorted(by: { $0.key < $1.key })
        where numbers != Array(1...Int64(numbers.count)) {
            return "\(account)'s webhook events are numbered \(numbers)"
        }
        return nil
    }
}

extension Optional {
    fileprivate func unwrapped() throws -> Wrapped {
        guard let self else { throw SimulationFailure("a value the Google Play world needs is missing") }
        return self
    }
}
