import SubLedgerCore
import Testing

/// The event body is written by the core without Foundation: times as the API writes them, strings
/// escaped as JSON, the sequence spliced in where the outbox puts it.
@Suite struct WebhookEventBodyTests {
    @Test func timesAreRFC3339InUTCWithMilliseconds() {
        #expect(EventJSON.rfc3339(Instant(millisecondsSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(EventJSON.rfc3339(Instant(millisecondsSince1970: 1_735_689_600_123)) == "2025-01-01T00:00:00.123Z")
        #expect(EventJSON.rfc3339(Instant(millisecondsSince1970: 1_709_210_096_007)) == "2024-02-29T12:34:56.007Z")
        #expect(EventJSON.rfc3339(Instant(millisecondsSince1970: -1)) == "1969-12-31T23:59:59.999Z")
        #expect(EventJSON.rfc3339(Instant(millisecondsSince1970: 253_402_300_799_999)) == "9999-12-31T23:59:59.999Z")
    }

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
