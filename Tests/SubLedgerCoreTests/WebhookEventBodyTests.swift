import SubLedgerCore
import Testing

/// The event body is written by the core without Foundation: times as the API writes them (`RFC3339`, tested
/// in `RFC3339Tests`), strings escaped as JSON, the sequence spliced in where the outbox puts it.
@Suite struct WebhookEventBodyTests {
    @Test func stringsAreEscapedAndMembersKeepTheirOrder() {
        let value = EventJSON.object([
            .init("z", .string("quote \" backslash \\ newline \n bell \u{7} é")),
            .init("a", .array([.integer(-3), .bool(true), .null])),
        ])
        #expect(value.text == #"{"z":"quote \" backslash \\ newline \n bell \u0007 é","a":[-3,true,null]}"#)
    }

    @Test func theSequenceGoesBetweenTheHeadAndTheTail() throws {
        let draft = WebhookEventDraft(
            type: .entitlementGranted, environment: .production, account: try AccountID("alice"),
            occurredAt: Instant(millisecondsSince1970: 0), subject: "grant:Production:1",
            data: [.init("reason", .string("purchase"))])
        let parts = WebhookEventBody.parts(
            of: draft, id: "id-1", bundleID: "com.example.one", cause: WebhookEventCause(kind: .receipt, id: "7"),
            entitlements: [], creditBalance: nil)
        #expect(
            parts.head + "3" + parts.tail == """
                {"id":"id-1","type":"entitlement.granted","occurred_at":"1970-01-01T00:00:00.000Z","app":"com.example.one",\
                "environment":"Production","account_id":"alice","sequence":3,"cause":{"kind":"receipt","id":"7"},\
                "data":{"reason":"purchase"},"entitlements":[]}
                """)
        #expect(draft.idempotencyKey == "entitlement.granted|Production|alice|grant:Production:1")
    }
}

/// Renewal info stating a price increase raises `subscription.price_increase` once per state the customer is
/// in: pending (Apple waits for consent), then accepted, with the price of the next period.
@Suite struct PriceIncreaseEventTests {
    typealias F = Fixtures

    static func renewal(status: Int?, observedOn day: Int) -> RenewalInfo {
        var renewal = F.renewal(chain: "t1", willAutoRenew: true, observedOn: day)
        renewal.priceIncreaseStatus = status
        renewal.renewalPrice = status == nil ? 9_990 : 12_990
        renewal.currency = "USD"
        renewal.renewalDate = F.day(30)
        return renewal
    }

    static func events(_ state: inout LedgerState, _ input: LedgerInput, now: Instant) throws -> [WebhookEventDraft] {
        let before = Array(state.chains.values)
        let decision = try state.apply(input, now: now)
        return WebhookEventDerivation.drafts(
            input: input, cause: WebhookEventCause(kind: .notification, id: "n"), before: before, decision: decision,
            app: try #require(state.catalog.app(bundleID: F.bundleID)), now: now)
    }

    @Test func pendingThenAcceptedEachRaiseOneEvent() throws {
        var state = try F.state(applying: [
            (
                F.receipt(
                    by: F.alice, [F.subscription("t1", chain: "t1", from: 0, to: 30)],
                    renewals: [Self.renewal(status: nil, observedOn: 1)], observedOn: 1), F.day(1)
            )
        ])
        let pending = try Self.events(
            &state, F.notification([], renewals: [Self.renewal(status: 0, observedOn: 5)], observedOn: 5), now: F.day(5)
        )
        let increase = try #require(pending.first { $0.type == .priceIncrease })
        #expect(increase.account == F.alice)
        #expect(
            EventJSON.object(increase.data).text
                == #"{"status":"pending","auto_renew_product_id":"pro.monthly","renewal_price_milli":12990,"currency":"USD","renewal_date":"2023-12-14T22:13:20.000Z","product_id":"pro.monthly","original_transaction_id":"t1"}"#
        )
        // The same statement again: nothing new.
        let repeated = try Self.events(
            &state, F.notification([], renewals: [Self.renewal(status: 0, observedOn: 6)], observedOn: 6), now: F.day(6)
        )
        #expect(!repeated.contains { $0.type == .priceIncrease })
        let accepted = try Self.events(
            &state, F.notification([], renewals: [Self.renewal(status: 1, observedOn: 7)], observedOn: 7), now: F.day(7)
        )
        #expect(
            accepted.filter { $0.type == .priceIncrease }.map {
                EventJSON.object($0.data).text.contains(#""status":"accepted""#)
            } == [true])
    }
}
