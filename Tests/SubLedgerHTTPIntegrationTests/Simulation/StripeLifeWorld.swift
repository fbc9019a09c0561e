import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SeededRandom
import StripeClients
import StripeSimulator
import StripeStore
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerUseCases

/// One simulated Stripe world, generated from a seed: an app selling a monthly web subscription through SubLedger's
/// Stripe checkout, a few accounts, and a life of purchases, renewals, cancellations at period end, declining cards
/// and their retries, full and partial refunds, webhooks dropped or sent twice and recovered from Stripe's events
/// list (redelivered newest first, then `poll`'s reconciliation), support grants and their revocation, merges and
/// erasures, driven through SubLedger's HTTP API with stripe-sim as Stripe.
///
/// After every step SubLedger's database and answers are compared with `StripeReferenceModel`; at the end of the
/// world the revenue report is compared with what stripe-sim charged, refunded and kept as its fee. The first
/// disagreement ends the world and comes back with the steps that led to it and the plan through the failing step.
///
/// As in `CustomerLifeWorld`, the seed draws the setup (the accounts, and stripe-sim's identifiers) and the plan is the
/// life: each step an action and its own entropy, so any subsequence of a plan is a life too and a failing plan can be
/// shrunk.
struct StripeLifeWorld {
    /// One step of a life: an action of the table in `WebLife.act(roll:)` and its entropy.
    typealias Step = SimulationStep

    /// The world's setup and stripe-sim's seed.
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
            "Stripe world \(seed), step \(step): \(invariant)\nsteps (replay: SIMULATION_SEEDS=\(seed),):\n"
                + log.enumerated().map { "  \($0.offset): \($0.element)" }.joined(separator: "\n")
                + "\nas a plan: StripeLifeWorld(seed: \(seed), plan: [\(plan.map(\.description).joined(separator: ", "))])"
        }
    }

    /// The subscription's price in the world of `seed` (one of `SimulationMoney.prices`), in Stripe's minor units of
    /// its currency, and how many milli-units one minor unit is.
    static func price(seed: UInt64) -> (minor: Int64, currency: String, milliPerMinor: Int64) {
        let price = SimulationMoney.price(seed: seed)
        let milliPerMinor: Int64 = ["JPY": 1_000, "KWD": 1][price.currency] ?? 10
        return (price.milli / milliPerMinor, price.currency, milliPerMinor)
    }

    /// Runs the world; nil when every invariant held after every step, else the first violation.
    func run() async throws -> Violation? {
        let sim = try await StripeSimulator.start(
            .init(
                seed: seed, startTime: Instant(millisecondsSince1970: 1_764_201_600_000),
                secretKey: StripeHarness.secretKey, deliveryTimeout: .seconds(120)))
        do {
            try await StripeHarness.run(stripeURL: sim.baseURL, now: { sim.control.now }, secondServer: true) { h in
                guard let port = h.client.port else { throw SimulationFailure("the server has no port") }
                sim.control.addWebhookEndpoint(
                    url: "http://127.0.0.1:\(port)/v1/notifications/stripe", secret: StripeHarness.webhookSecret)
                _ = try await sim.control.createProduct(name: "Pro", id: StripeHarness.product)
                let money = Self.price(seed: seed)
                let price = try await sim.control.createPrice(
                    product: StripeHarness.product, unitAmount: money.minor, currency: money.currency.lowercased())
                var life = try await WebLife(seed: seed, sim: sim, h: h, price: price, money: money)
                var violation = try await life.live(plan: plan)
                if let step = violation?.step { violation?.plan = Array(plan.prefix(step + 1)) }
                if ProcessInfo.processInfo.environment["SIMULATION_VERBOSE"] != nil {
                    print("Stripe world \(seed):\n" + life.log.map { "  " + $0 }.joined(separator: "\n"))
                }
                if let violation { throw violation }
            }
        } catch let violation as Violation {
            try? await sim.shutdown()
            return violation
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
        return nil
    }
}

/// The running state of one Stripe world.
private struct WebLife {
    typealias Model = StripeReferenceModel

    let seed: UInt64
    let sim: StripeSimulator
    let h: StripeHarness
    let price: String
    /// The price's amount, currency and minor unit (`StripeLifeWorld.price(seed:)`).
    let money: (minor: Int64, currency: String, milliPerMinor: Int64)
    /// Each charge's refunds as the world made them, in order: when, and whether it refunded all that was left.
    var refunds: [String: [(at: Int64, rest: Bool)]] = [:]
    /// Each disputed charge's dispute: its id, when it was opened, and, once the bank decided, whether it was lost.
    var disputes: [String: (id: String, openedAt: Int64, lost: Bool?)] = [:]
    let admin: String
    let reconciliation: StripeEventsReconciliation
    var random: SplitMix64
    var model = Model()
    var accounts: [String] = []
    /// Accounts SubLedger has seen (an order or a grant).
    var known: Set<String> = []
    /// Subscription → the Checkout Session that made it.
    var sessions: [String: String] = [:]
    var decliningCustomers: Set<String> = []
    /// Webhook deliveries dropped so far, and how many of them a recovery has read back since.
    var recoveredDrops = 0
    /// The server stripe-sim's webhooks go to (`TwoServers`): 1 or 2.
    var notifiedServer = 1
    /// An invariant a step's own answers broke (a submission answered other than the model), reported after the step.
    var broken: String?
    var log: [String] = []

    init(
        seed: UInt64, sim: StripeSimulator, h: StripeHarness, price: String,
        money: (minor: Int64, currency: String, milliPerMinor: Int64)
    ) async throws {
        self.seed = seed
        self.sim = sim
        self.h = h
        self.price = price
        self.money = money
        random = SplitMix64(seed: seed)
        admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "simulation").secret
        var configuration = StripeEventsReconciliation.Configuration(worker: "simulation")
        configuration.interval = .zero
        reconciliation = StripeEventsReconciliation(
            configuration: configuration, port: h.port, cursors: StoreEventCursors(pool: h.pool, store: .stripe),
            catalog: h.catalog)
        // `poll`'s first read of the app sets its cursor, before anything is bought.
        _ = try await reconciliation.runCycle()
        for index in 0..<(3 + Int(random.next() % 2)) { accounts.append("web-\(seed)-\(index)") }
        log.append("accounts \(accounts); \(money.minor) \(money.currency) a month")
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
    /// The server a submission goes to, of the world's two on one database (`TwoServers`), and its name for the log.
    mutating func server() -> (client: any TestClientProtocol, name: String) {
        chance(50) ? (h.client, "server 1") : (h.secondClient ?? h.client, "server 2")
    }
    /// stripe-sim's clock (SubLedger's), in seconds.
    var now: Int64 { sim.control.now.millisecondsSince1970 / 1000 }
    var liveAccounts: [String] { accounts.filter { model.holder($0) == $0 } }
    var dropped: Int { sim.control.deliveries().filter(\.dropped).count }
    /// Whether some webhook was dropped and no recovery has read it back yet: SubLedger may not know everything.
    var stale: Bool { dropped > recoveredDrops }

    mutating func live(plan: [StripeLifeWorld.Step]) async throws -> StripeLifeWorld.Violation? {
        let steps = plan.count
        for (step, choice) in plan.enumerated() {
            // Every choice of this step comes from its own entropy: leaving out an earlier step changes none of it.
            random = SplitMix64(seed: choice.entropy)
            do {
                routeWebhooks()
                try await act(roll: UInt64(choice.kind) % 100)
                try recordBilling()
            } catch let failure as SimulationFailure {
                return .init(seed: seed, step: step, invariant: "the simulation cannot go on: \(failure)", log: log)
            }
            if let broken { return .init(seed: seed, step: step, invariant: broken, log: log) }
            if let broken = try await check() { return .init(seed: seed, step: step, invariant: broken, log: log) }
        }
        // The end: what was dropped is read back from Stripe's events list.
        try await recover(redeliver: false)
        try recordBilling()
        log.append("end: the events list read back")
        if let broken = try await check() { return .init(seed: seed, step: steps, invariant: broken, log: log) }
        if let broken = try await checkRevenue() { return .init(seed: seed, step: steps, invariant: broken, log: log) }
        if let leak = try await SimulationErasureCheck.erasedIDLeft(model.erased, in: h.pool) {
            return .init(seed: seed, step: steps, invariant: leak, log: log)
        }
        let verification = try await LedgerStore(pool: h.pool).verifyLedgerChain(appID: nil, since: nil)
        if let first = verification.breaks.first {
            return .init(seed: seed, step: steps, invariant: "ledger verify: \(first)", log: log)
        }
        return nil
    }

    // MARK: Steps

    mutating func act(roll: UInt64) async throws {
        // A second passes between two steps: no two steps share an instant.
        await sim.control.advance(seconds: 1)
        switch roll {
        case 0..<20: try await buy()
        case 20..<24: try await submitSession()
        case 24..<27: try await submitSessionConcurrently()
        case 27..<30: try await submitSessionFromTwoAccountsConcurrently()
        case 30..<42: try await passTime(days: Int64(1 + random.next() % 40))
        case 42..<49: try await toggleCancel()
        case 49..<54: try await toggleDeclines()
        case 54..<58: try await refund()
        case 58..<63: try await dispute()
        case 63..<70: outage()
        case 70..<75: try await recover(redeliver: chance(50))
        case 75..<85: try await grantOrRevoke()
        case 85..<92: try await merge()
        default: try await erase()
        }
    }

    /// An account buys through SubLedger's checkout (the order rides in the session's metadata) and pays; the success
    /// page now and then submits the session at once. An erased account's checkout is refused.
    mutating func buy() async throws {
        if !model.erased.isEmpty, chance(10) {
            let account = pick(model.erased.sorted())
            let answer = try await checkout(account)
            guard answer.status == .gone else {
                throw SimulationFailure("a checkout for erased \(account) answered \(answer.status): \(answer.json)")
            }
            log.append("a checkout for erased \(account): 410")
            return
        }
        let account = pick(liveAccounts)
        let answer = try await checkout(account)
        guard answer.status == .created, let session = answer.json["checkout_session_id"] as? String else {
            throw SimulationFailure("a checkout for \(account) answered \(answer.status): \(answer.json)")
        }
        known.insert(account)
        let subscription = try await sim.control.completeCheckout(session)
        sessions[subscription] = session
        model.bought(subscription, by: account)
        log.append("\(account) buys \(subscription)")
        if chance(40) { try await submit(subscription, by: chance(80) ? account : pick(liveAccounts)) }
    }

    func checkout(_ account: String) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        let json: [String: Any] = [
            "account_id": account, "product_id": StripeHarness.product, "price": price,
            "success_url": "https://example.com/paid?session={CHECKOUT_SESSION_ID}",
        ]
        let answer = try await h.client.call(
            .post, "/v1/checkout/stripe", key: h.key,
            raw: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        return (answer.status, answer.json)
    }

    mutating func submitSession() async throws {
        guard !model.subscriptions.isEmpty else { return }
        try await submit(pick(model.subscriptions), by: pick(liveAccounts))
    }

    /// The success page submits a session: the order in its metadata names the buyer, whoever submits it.
    mutating func submit(_ subscription: String, by account: String) async throws {
        guard let session = sessions[subscription] else { return }
        let (client, name) = server()
        let answer = try await client.call(
            .post, "/v1/purchases/stripe", key: h.key, json: ["account_id": account, "checkout_session_id": session])
        guard answer.status == .ok else {
            throw SimulationFailure("POST /v1/purchases/stripe answered \(answer.status): \(answer.json)")
        }
        known.insert(account)
        log.append(
            "\(account) submits the session of \(subscription) to \(name): "
                + "\(answer.json.results.sorted { $0.key < $1.key })")
        // The answer speaks of every invoice Stripe had been paid when SubLedger read the subscription: now.
        try recordBilling()
        compare(
            answer.json.results, with: model.answers(subscription: subscription, submitter: account),
            of: "\(account)'s submission")
    }

    /// Records as broken a submission's answers that differ from the model's (`StripeReferenceModel.answers`).
    mutating func compare(_ answered: [String: String], with expected: [String: String], of call: String) {
        guard broken == nil, answered != expected else { return }
        broken =
            "\(call) answered \(answered.sorted { $0.key < $1.key }); the model says "
            + "\(expected.sorted { $0.key < $1.key })"
    }

    /// An account submits a Checkout Session to both servers at once (the success page reloaded on the other
    /// instance): both must answer 200, and the subscription stays its buyer's, credited once. A submission moves
    /// nothing, so which one committed first does not matter to the model.
    mutating func submitSessionConcurrently() async throws {
        guard !model.subscriptions.isEmpty else { return }
        let subscription = pick(model.subscriptions)
        let account = pick(liveAccounts)
        guard let session = sessions[subscription] else { return }
        let answers = try await TwoServers.both(
            h.client, h.secondClient ?? h.client, .post, "/v1/purchases/stripe", key: h.key,
            json: ["account_id": account, "checkout_session_id": session])
        guard answers.allSatisfy({ $0.status == .ok }) else {
            throw SimulationFailure(
                "concurrent POST /v1/purchases/stripe answered \(answers.map { "\($0.status) \($0.json)" })")
        }
        known.insert(account)
        let answered = answers.map(\.json.results)
        log.append(
            "\(account) submits the session of \(subscription) to both servers at once: "
                + answered.map { "\($0.sorted { $0.key < $1.key })" }.joined(separator: " and "))
        // Either serial order answers the model's answer twice: a submission moves nothing.
        try recordBilling()
        let expected = model.answers(subscription: subscription, submitter: account)
        if broken == nil, answered != [expected, expected] {
            broken =
                "a concurrent pair answered \(answered), which no serial order gives: the model answers "
                + "\(expected) twice"
        }
    }

    /// Two accounts submit one Checkout Session at once, one to each server (the success page's link opened in two
    /// accounts). Whichever commits first, the subscription stays its holder's (the order in its metadata names it),
    /// so both serial orders end alike, as `check()` then verifies, and answer alike: `applied` to the holder,
    /// `belongs_to_another_account` to the other.
    mutating func submitSessionFromTwoAccountsConcurrently() async throws {
        guard !model.subscriptions.isEmpty else { return }
        let subscription = pick(model.subscriptions)
        let pair = [pick(liveAccounts), pick(liveAccounts)]
        guard pair[0] != pair[1], let session = sessions[subscription] else { return }
        let answers = try await TwoServers.both(
            (h.client, ["account_id": pair[0], "checkout_session_id": session]),
            (h.secondClient ?? h.client, ["account_id": pair[1], "checkout_session_id": session]),
            .post, "/v1/purchases/stripe", key: h.key)
        guard answers.allSatisfy({ $0.status == .ok }) else {
            throw SimulationFailure(
                "concurrent POST /v1/purchases/stripe answered \(answers.map { "\($0.status) \($0.json)" })")
        }
        known.formUnion(pair)
        let answered = answers.map(\.json.results)
        log.append(
            "\(pair[0]) and \(pair[1]) submit the session of \(subscription) at once, to servers 1 and 2: "
                + answered.map { "\($0.sorted { $0.key < $1.key })" }.joined(separator: " and "))
        try recordBilling()
        var outcomes: [String] = []
        for order in [[0, 1], [1, 0]] {
            // The model is fed nothing: a submission moves nothing, whichever came first.
            let expected = order.map { model.answers(subscription: subscription, submitter: pair[$0]) }
            if order.indices.allSatisfy({ expected[$0] == answered[order[$0]] }) { return }
            outcomes.append("\(order.map { pair[$0] }) would answer \(expected)")
        }
        if broken == nil {
            broken =
                "two accounts' concurrent submissions answered \(answered), as no serial order does: "
                + outcomes.joined(separator: "; ")
        }
    }

    /// Time passes, ten days at most at a time (a month renews at most once in each), each renewal and retry due.
    mutating func passTime(days: Int64) async throws {
        var left = days
        while left > 0 {
            let chunk = min(left, 10)
            await sim.control.advance(seconds: chunk * 86_400)
            try recordBilling()
            left -= chunk
        }
        log.append("the clock advances \(days) days")
    }

    mutating func toggleCancel() async throws {
        guard !model.subscriptions.isEmpty else { return }
        let subscription = pick(model.subscriptions)
        let object = try self.object(subscription)
        guard ["active", "past_due"].contains(object["status"] as? String ?? "") else { return }
        let cancel = !(object["cancel_at_period_end"] as? Bool ?? false)
        try await sim.control.updateSubscription(subscription, "cancel_at_period_end=\(cancel)")
        log.append(cancel ? "\(subscription) cancels at period end" : "\(subscription) resumes")
    }

    mutating func toggleDeclines() async throws {
        guard !model.subscriptions.isEmpty else { return }
        let subscription = pick(model.subscriptions)
        guard let customer = try object(subscription)["customer"] as? String else { return }
        let declines = !decliningCustomers.contains(customer)
        if declines { decliningCustomers.insert(customer) } else { decliningCustomers.remove(customer) }
        await sim.control.setCardDeclines(customer, declines)
        log.append("the card of \(subscription) \(declines ? "declines from now on" : "pays again")")
    }

    /// Stripe refunds the latest paid invoice of a subscription: in part, or all that is left.
    mutating func refund() async throws {
        let open = model.subscriptions.compactMap { model.invoices[$0]?.last }.filter {
            $0.refunded < $0.amount && disputes[$0.charge] == nil
        }
        guard !open.isEmpty else { return }
        let invoice = pick(open)
        let rest = invoice.amount - invoice.refunded
        // A three-decimal currency's amounts end in 0, as Stripe requires of them.
        let unit: Int64 = money.milliPerMinor == 1 ? 10 : 1
        let amount: Int64? =
            rest > unit && chance(50) ? unit * Int64(1 + random.next() % UInt64(rest / unit - 1)) : nil
        try await sim.control.refund(charge: invoice.charge, amount: amount)
        refunds[invoice.charge, default: []].append((now, amount == nil))
        log.append(
            "Stripe refunds \(amount.map { "\($0) of" } ?? "the rest of") \(invoice.id) (\(invoice.subscription))")
    }

    /// The cardholder's bank disputes a paid charge, or decides an open dispute: lost, the sale is taken back from the
    /// dispute's opening with the whole price (docs/guides/stripe.md); won, it stands.
    mutating func dispute() async throws {
        let open = disputes.filter { $0.value.lost == nil }.sorted { $0.key < $1.key }
        if !open.isEmpty, chance(70) {
            let (charge, dispute) = pick(open)
            let won = chance(50)
            try await sim.control.closeDispute(dispute.id, won: won)
            disputes[charge]?.lost = !won
            if !won { model.lostDispute(charge: charge) }
            log.append("the bank decides dispute \(dispute.id) of \(charge): \(won ? "won" : "lost")")
            return
        }
        let paid = model.subscriptions.flatMap { model.invoices[$0] ?? [] }.filter {
            $0.amount > 0 && !$0.revoked && disputes[$0.charge] == nil
        }
        guard !paid.isEmpty else { return }
        let invoice = pick(paid)
        let id = try await sim.control.openDispute(charge: invoice.charge)
        disputes[invoice.charge] = (id, now, nil)
        log.append("the bank disputes \(invoice.id)'s charge \(invoice.charge) (\(invoice.subscription)): \(id)")
    }

    /// Now and then, stripe-sim's webhooks go to the other server from this step on (both serve one database): its
    /// endpoint is pointed at the other server's notification route.
    mutating func routeWebhooks() {
        guard chance(20) else { return }
        notifiedServer = 3 - notifiedServer
        let client = notifiedServer == 1 ? h.client : h.secondClient ?? h.client
        sim.control.pointWebhookEndpoint(url: "http://127.0.0.1:\(client.port ?? 0)/v1/notifications/stripe")
        log.append("webhooks go to server \(notifiedServer)")
    }

    /// The next webhooks never reach SubLedger (dropped), or arrive twice.
    mutating func outage() {
        let count = Int(1 + random.next() % 8)
        if chance(70) {
            sim.control.dropNextWebhooks(count)
            log.append("the next \(count) webhooks are dropped")
        } else {
            sim.control.duplicateNextWebhooks(count)
            log.append("the next \(count) webhooks are sent twice")
        }
    }

    /// What was dropped is read back: now and then the newest page of Stripe's events list is redelivered, newest
    /// first (late and out of order), then `poll`'s reconciliation reads the list from its cursor.
    mutating func recover(redeliver: Bool) async throws {
        let seen = dropped
        if redeliver {
            let api = StripeAPI(
                httpClient: .shared, secretKey: StripeHarness.secretKey, configuration: .init(baseURL: sim.baseURL))
            let events = try await api.events().events
            for (_, body) in events.reversed() {
                let answer = try await h.deliver(body, signature: StripeWebhookRefusalTests.signature(body))
                guard answer.status == .ok else {
                    throw SimulationFailure("a redelivered event answered \(answer.status): \(answer.json)")
                }
            }
        }
        let report = try await reconciliation.runCycle()
        guard report.failed == 0 else { throw SimulationFailure("the reconciliation failed: \(report)") }
        recoveredDrops = seen
        log.append("recovery\(redeliver ? " (the newest events redelivered newest first)" : ""): \(report)")
    }

    /// Support grants `pro` for 1 to 20 days, or revokes a running grant.
    mutating func grantOrRevoke() async throws {
        let running = model.grants.filter {
            $0.revokedAt == nil && now < $0.end && liveAccounts.contains($0.account)
        }
        if !running.isEmpty, chance(40) {
            let grant = pick(running)
            let answer = try await h.client.call(
                .delete, "/v1/accounts/\(grant.account)/grants/\(grant.id)?bundle_id=\(StripeHarness.bundleID)",
                key: admin)
            guard answer.status == .ok else {
                throw SimulationFailure("revoking \(grant.id) answered \(answer.status): \(answer.json)")
            }
            model.revoked(grant: grant.id, at: now)
            log.append("support revokes \(grant.account)'s grant \(grant.id)")
            return
        }
        let erasedTarget = !model.erased.isEmpty && chance(10)
        let account = erasedTarget ? pick(model.erased.sorted()) : pick(liveAccounts)
        let days = Int64(1 + random.next() % 20)
        let answer = try await h.client.call(
            .post, "/v1/accounts/\(account)/grants", key: admin,
            json: [
                "bundle_id": StripeHarness.bundleID, "entitlement_id": "pro", "duration": "\(days)d",
                "reason": "a goodwill gesture",
            ])
        if erasedTarget {
            guard answer.status == .gone else {
                throw SimulationFailure("a grant to erased \(account) answered \(answer.status): \(answer.json)")
            }
            log.append("a grant to erased \(account): 410")
            return
        }
        guard answer.status == .created, let id = answer.json["grant_id"] as? String else {
            throw SimulationFailure("a grant to \(account) answered \(answer.status): \(answer.json)")
        }
        known.insert(account)
        model.granted(.init(id: id, account: account, end: now + days * 86_400))
        log.append("support grants \(account) pro for \(days) days (\(id))")
    }

    mutating func merge() async throws {
        let candidates = liveAccounts
        guard candidates.count >= 3 else { return }
        let from = pick(candidates)
        let into = pick(candidates.filter { $0 != from })
        let answer = try await h.client.call(
            .post, "/v1/accounts/\(into)/merge", key: admin, json: ["bundle_id": StripeHarness.bundleID, "from": from])
        guard answer.status == .ok else {
            throw SimulationFailure("merge \(from) into \(into) answered \(answer.status): \(answer.json)")
        }
        model.merge(from: from, into: into, at: now)
        log.append("support merges \(from) into \(into)")
    }

    mutating func erase() async throws {
        let candidates = liveAccounts
        guard candidates.count >= 2 else { return }
        let account = pick(candidates)
        guard
            let pseudonym = try await SimulationErasureCheck.erase(
                account, known: known.contains(account), bundleID: StripeHarness.bundleID,
                productID: StripeHarness.product, client: h.client, admin: admin, key: h.key)
        else {
            log.append("\(account), never seen by SubLedger, has nothing to erase (404)")
            return
        }
        model.erase(account, pseudonym: pseudonym)
        log.append("\(account) is erased (now \(pseudonym))")
    }

    // MARK: What Stripe billed

    func object(_ id: String) throws -> [String: Any] {
        guard let json = sim.control.object(id),
            let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
        else { throw SimulationFailure("stripe-sim has no \(id)") }
        return object
    }

    /// Feeds the model each subscription's latest invoice once paid (with its charge and Stripe's fee), and what has
    /// been refunded of every invoice it holds.
    mutating func recordBilling() throws {
        for subscription in model.subscriptions {
            guard let invoiceID = try object(subscription)["latest_invoice"] as? String else { continue }
            let invoice = try object(invoiceID)
            guard invoice["status"] as? String == "paid",
                let charge = sim.control.latestCharge(ofSubscription: subscription)
            else { continue }
            let chargeObject = try object(charge)
            let line = ((invoice["lines"] as? [String: Any])?["data"] as? [[String: Any]])?.first
            let period = line?["period"] as? [String: Any]
            guard let start = (period?["start"] as? NSNumber)?.int64Value,
                let end = (period?["end"] as? NSNumber)?.int64Value,
                let amount = (chargeObject["amount"] as? NSNumber)?.int64Value,
                let balance = chargeObject["balance_transaction"] as? String,
                let fee = (try object(balance)["fee"] as? NSNumber)?.int64Value
            else { throw SimulationFailure("invoice \(invoiceID) or its charge \(charge) lacks a field") }
            model.paid(
                .init(
                    id: invoiceID, subscription: subscription, start: start, end: end, charge: charge, amount: amount,
                    fee: fee))
        }
        for list in model.invoices.values {
            for invoice in list {
                let refunded = (try object(invoice.charge)["amount_refunded"] as? NSNumber)?.int64Value ?? 0
                if refunded != invoice.refunded { model.refunded(charge: invoice.charge, total: refunded) }
            }
        }
    }

    // MARK: Invariants

    /// The first invariant that does not hold now, if any.
    func check() async throws -> String? {
        // 1. Every Stripe chain SubLedger stores is the buyer's (after merges, the pseudonym after an erasure), and
        // so is every transaction on it.
        for row in try await h.pool.query(
            "SELECT original_transaction_id, owner_account_id FROM chains WHERE original_transaction_id LIKE 'sub_%'")
        {
            let chain = try row.decode(String.self, at: 0)
            let owner = try row.decode(String?.self, at: 1)
            guard let holder = model.holder(ofSubscription: chain) else {
                return "SubLedger stores chain \(chain), which no checkout of the world bought"
            }
            if owner != holder { return "chain \(chain) is owned by \(owner ?? "nobody"); the model says \(holder)" }
        }
        var stored: [String: [(id: String, account: String?, revoked: Bool)]] = [:]
        for row in try await h.pool.query(
            """
            SELECT original_transaction_id, transaction_id, account_id, revocation_date IS NOT NULL FROM transactions
            WHERE original_transaction_id LIKE 'sub_%' ORDER BY purchase_date, transaction_id
            """
        ) {
            stored[try row.decode(String.self, at: 0), default: []].append(
                (
                    try row.decode(String.self, at: 1), try row.decode(String?.self, at: 2),
                    try row.decode(Bool.self, at: 3)
                ))
        }
        for (chain, transactions) in stored.sorted(by: { $0.key < $1.key }) {
            for transaction in transactions where transaction.account != model.holder(ofSubscription: chain) {
                return "transaction \(transaction.id) of \(chain) is credited to \(transaction.account ?? "nobody"); "
                    + "the model says \(model.holder(ofSubscription: chain) ?? "nobody")"
            }
        }
        // 2. Exactly once: a chain's first transaction has one grant entry, every later one one extension.
        var entries: [String: [String]] = [:]
        for row in try await h.pool.query(
            "SELECT transaction_id, kind FROM ledger_entries WHERE kind IN ('grant', 'extend') ORDER BY entry_id")
        {
            entries[try row.decode(String.self, at: 0), default: []].append(try row.decode(String.self, at: 1))
        }
        for (chain, transactions) in stored.sorted(by: { $0.key < $1.key }) {
            for (index, transaction) in transactions.enumerated() {
                let expected = transaction.account == nil ? [] : [index == 0 ? "grant" : "extend"]
                if (entries[transaction.id] ?? []) != expected {
                    return "transaction \(transaction.id) (#\(index + 1) of \(chain)) has entries "
                        + "\(entries[transaction.id] ?? []); expected \(expected)"
                }
            }
        }
        let at = now
        if !stale {
            // What Stripe billed is what SubLedger holds: one transaction per paid invoice, revoked when refunded
            // in full.
            for subscription in model.subscriptions {
                let invoices = model.invoices[subscription] ?? []
                let held = stored[subscription] ?? []
                if held.count != invoices.count || held.filter(\.revoked).count != invoices.filter(\.revoked).count {
                    return "\(subscription) has \(held.count) transactions (\(held.filter(\.revoked).count) revoked); "
                        + "Stripe was paid \(invoices.count) invoices (\(invoices.filter(\.revoked).count) refunded "
                        + "in full)"
                }
            }
            // 3. Entitlements: the model's answer at stripe-sim's clock; a merged id holds nothing.
            for account in accounts where !model.erased.contains(account) {
                let reads = try await h.entitlements(account)
                let expected = model.holder(account) == account && model.isEntitled(account, at: at) ? ["pro"] : []
                if reads != expected {
                    return "\(account) reads \(reads) at \(at); the model says \(expected) "
                        + "(invoices: \(describeHoldings(of: account)))"
                }
            }
        }
        // 4. An erased id's read answers 410.
        for account in model.erased.sorted() {
            let read = try await h.client.call(.get, "/v1/accounts/\(account)/entitlements", key: h.key)
            if read.status != .gone { return "erased \(account)'s entitlement read answers \(read.status)" }
        }
        // 5. Webhooks: each account's events of an environment (a grant's are Production's) numbered 1, 2, 3 … with no
        // gap.
        var sequences: [String: [Int64]] = [:]
        for row in try await h.pool.query(
            """
            SELECT account_id || ' (' || environment || ')', account_sequence FROM webhook_events
            WHERE account_id IS NOT NULL ORDER BY account_id, environment, account_sequence
            """
        ) {
            sequences[try row.decode(String.self, at: 0), default: []].append(try row.decode(Int64.self, at: 1))
        }
        for (account, numbers) in sequences.sorted(by: { $0.key < $1.key })
        where numbers != Array(1...Int64(numbers.count)) {
            return "\(account)'s webhook events are numbered \(numbers)"
        }
        return nil
    }

    func describeHoldings(of account: String) -> String {
        let invoices = model.subscriptions.filter { model.holder(ofSubscription: $0) == account }.flatMap {
            model.invoices[$0] ?? []
        }.map { "\($0.id) \($0.start)..\($0.end) refunded \($0.refunded)/\($0.amount)" }
        let grants = model.grants.filter { $0.account == account }.map {
            "grant \($0.id) to \($0.end)" + ($0.revokedAt.map { " revoked \($0)" } ?? "")
        }
        return (invoices + grants).joined(separator: ", ")
    }

    /// The revenue and MRR reports over the whole world against stripe-sim's records (`SimulationMoney`), exactly, in
    /// the world's currency: every paid invoice a sale at what its charge took, each partial refund what it gave back
    /// and a charge refunded in full or lost in a dispute its whole price (the partial refunds before it then no longer
    /// count on their own),
    /// Stripe's fee what the balance transactions kept, no commission, proceeds what is left; MRR at each month's end
    /// each subscription's paid invoice in force.
    func checkRevenue() async throws -> String? {
        _ = try await ReportProjector(pool: h.pool).projectAll()
        let sales = model.invoices.values.flatMap { $0 }.filter { $0.amount > 0 }.map { invoice in
            let made = refunds[invoice.charge] ?? []
            return SimulationMoney.Sale(
                id: invoice.id, subscriber: invoice.subscription, purchase: invoice.start * 1000,
                expires: invoice.end * 1000, price: invoice.amount * money.milliPerMinor, currency: money.currency,
                fee: invoice.fee * money.milliPerMinor,
                revokedAt: invoice.disputeLost
                    ? (disputes[invoice.charge]?.openedAt ?? 0) * 1000
                    : invoice.revoked ? made.last.map { $0.at * 1000 } ?? 0 : nil,
                partiallyRefunded: invoice.revoked ? 0 : invoice.refunded * money.milliPerMinor,
                partialRefunds: invoice.revoked ? 0 : made.count)
        }
        let end = Date(timeIntervalSince1970: Double(now) + 2 * 86_400)
        let to = end.formatted(.iso8601.year().month().day())
        let answer = try await h.client.call(
            .get, "/v1/admin/reports/revenue?from=2025-11-01&to=\(to)&by=month", key: admin)
        guard answer.status == .ok else { return "the revenue report answered \(answer.status): \(answer.json)" }
        let expected = SimulationMoney.totals(sales)
        let reported = SimulationMoney.reportedTotals(answer.json)
        if reported != expected {
            return "the revenue report's totals are \(reported); stripe-sim's records give \(expected)"
        }
        let mrr = try await h.client.call(
            .get, "/v1/admin/reports/mrr?from=2025-11-01&to=\(SimulationMoney.monthAfter(now * 1000))", key: admin)
        guard mrr.status == .ok else { return "the MRR report answered \(mrr.status): \(mrr.json)" }
        return SimulationMoney.mrrDifference(
            expected: SimulationMoney.mrr(sales, firstMonth: (2025, 11), now: now * 1000),
            reported: SimulationMoney.reportedMRR(mrr.json))
    }
}
