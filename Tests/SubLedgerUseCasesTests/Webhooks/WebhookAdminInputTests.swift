import Foundation
import SubLedgerCore
import SubLedgerUseCases
import Testing

/// The checks `subledger webhooks ...` and the routes share: each bad input is refused with its code.
@Suite struct WebhookAdminInputTests {
    func code(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? WebhookAdminError)?.code.rawValue ?? "not a WebhookAdminError"
        }
    }

    @Test func durationsAreUnitsOrZeroAndBounded() throws {
        let maximum = WebhookAdminInput.maximumRotationOverlapSeconds
        #expect(try WebhookAdminInput.duration("24h", "x", maximum: maximum) == 86_400)
        #expect(try WebhookAdminInput.duration("90s", "x", maximum: maximum) == 90)
        #expect(try WebhookAdminInput.duration("0", "x", maximum: maximum) == 0)
        for bad in ["", "h", "-1h", "1w", "31d", "99999999999999d", "1.5h"] {
            #expect(
                code { _ = try WebhookAdminInput.duration(bad, "x", maximum: maximum) } == "invalid_duration", "\(bad)")
        }
    }

    @Test func datesAreRFC3339OrADay() throws {
        #expect(try WebhookAdminInput.instant("2026-11-22", "x") == Instant(millisecondsSince1970: 1_795_305_600_000))
        #expect(
            try WebhookAdminInput.instant("2026-11-22T01:00:00+01:00", "x")
                == Instant(millisecondsSince1970: 1_795_305_600_000))
        #expect(
            try WebhookAdminInput.instant("2026-11-22T00:00:00.500Z", "x")
                == Instant(millisecondsSince1970: 1_795_305_600_500))
        for bad in ["yesterday", "2026-13-01", "22/11/2026", "2026-11-22 10:00", "2026-11-22\u{0}"] {
            #expect(code { _ = try WebhookAdminInput.instant(bad, "x") } == "invalid_date", "\(bad)")
        }
    }

    @Test func filtersAndTextAreChecked() throws {
        #expect(
            try WebhookAdminInput.eventTypes(["entitlement.granted,entitlement.revoked", "entitlement.granted"])
                == ["entitlement.granted", "entitlement.revoked"])
        #expect(
            code { _ = try WebhookAdminInput.eventTypes(["entitlement.granted", "bogus"]) } == "unknown_event_type")
        #expect(try WebhookAdminInput.environments(["sandbox", "Production"]) == ["Sandbox", "Production"])
        #expect(code { _ = try WebhookAdminInput.environments(["prod"]) } == "unknown_environment")
        #expect(code { _ = try WebhookAdminInput.text("a\u{FFFD}b", "x") } == "invalid_text")
        #expect(
            code { _ = try WebhookAdminInput.description(String(repeating: "é", count: 501)) } == "invalid_description")
        #expect(try WebhookAdminInput.description(String(repeating: "é", count: 500))?.count == 500)
        #expect(try WebhookAdminInput.description("  ") == nil)
        #expect(code { _ = try WebhookAdminInput.endpointID("123") } == "invalid_webhook_endpoint_id")
        #expect(code { _ = try WebhookAdminInput.deliveryState("done") } == "invalid_delivery_state")
        #expect(code { _ = try WebhookAdminInput.limit(1001) } == "invalid_limit")
        #expect(code { _ = try WebhookAdminInput.bundleID("bad id with spaces") } == "unknown_app")
    }

    @Test func everyCatalogTypeAndTheTestTypeAreKnown() {
        #expect(WebhookEventTypeNames.all.count == 18)
        #expect(WebhookEventTypeNames.isKnown("webhook.test"))
        #expect(WebhookEventTypeNames.isKnown("account.erased"))
        #expect(WebhookEventTypeNames.isKnown("subscription.price_increase"))
        #expect(WebhookEventTypeNames.isKnown("refund.requested"))
        #expect(!WebhookEventTypeNames.isKnown("Entitlement.Granted"))
    }
}
