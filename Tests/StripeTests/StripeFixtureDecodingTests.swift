import Foundation
import Stripe
import SubLedgerCore
import Testing

/// Stripe's own example of each object (its OpenAPI fixtures) decodes as SubLedger reads it.
@Suite struct StripeFixtureDecodingTests {
    static func data(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "stripe-fixtures", withExtension: "json"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let resources = try #require(root["resources"] as? [String: Any])
        return try JSONSerialization.data(withJSONObject: try #require(resources[name]))
    }

    @Test func subscription() throws {
        let subscription = try JSONDecoder().decode(StripeSubscription.self, from: Self.data("subscription"))
        #expect(subscription.id.hasPrefix("sub_"))
        #expect(subscription.customer?.id.hasPrefix("cus_") == true)
        let item = try #require(subscription.items.data.first)
        #expect(item.price.product.id.hasPrefix("prod_"))
        #expect(item.price.recurring?.interval == "month")
        #expect(item.currentPeriodEnd != nil)
    }

    @Test func invoice() throws {
        let invoice = try JSONDecoder().decode(StripeInvoice.self, from: Self.data("invoice"))
        #expect(invoice.id.hasPrefix("in_"))
        #expect(invoice.currency == "usd")
        #expect(invoice.lines.data.first?.period != nil)
    }

    @Test func paymentObjects() throws {
        let payment = try JSONDecoder().decode(StripeInvoicePayment.self, from: Self.data("invoice_payment"))
        #expect(payment.payment.type == "payment_intent")
        let intent = try JSONDecoder().decode(StripePaymentIntent.self, from: Self.data("payment_intent"))
        #expect(intent.id.hasPrefix("pi_"))
        let charge = try JSONDecoder().decode(StripeCharge.self, from: Self.data("charge"))
        #expect(charge.id.hasPrefix("ch_") && charge.amount == 100 && charge.balanceTransaction != nil)
        let refund = try JSONDecoder().decode(StripeRefund.self, from: Self.data("refund"))
        #expect(refund.charge?.id == charge.id)
        let dispute = try JSONDecoder().decode(StripeDispute.self, from: Self.data("dispute"))
        #expect(dispute.status == "warning_needs_response")
        let balance = try JSONDecoder().decode(StripeBalanceTransaction.self, from: Self.data("balance_transaction"))
        #expect(balance.fee == 0 && balance.amount == 100)
    }

    @Test func event() throws {
        let event = try JSONDecoder().decode(StripeEvent.self, from: Self.data("event"))
        #expect(event.type == "plan.created")
        #expect(event.subject == .none)
    }

    @Test func eventSubjects() throws {
        func subject(_ object: String) throws -> StripeEvent.Subject {
            let body = #"{"id":"evt_1","type":"t","created":1,"livemode":false,"data":{"object":\#(object)}}"#
            return try JSONDecoder().decode(StripeEvent.self, from: Data(body.utf8)).subject
        }
        #expect(try subject(#"{"object":"subscription","id":"sub_1"}"#) == .subscription("sub_1"))
        #expect(
            try subject(
                #"{"object":"invoice","id":"in_1","parent":{"type":"subscription_details","subscription_details":{"subscription":"sub_2"}}}"#
            ) == .subscription("sub_2"))
        #expect(try subject(#"{"object":"invoice","id":"in_1","parent":null}"#) == .none)
        #expect(
            try subject(#"{"object":"checkout.session","id":"cs_1","subscription":"sub_3"}"#) == .subscription("sub_3"))
        #expect(try subject(#"{"object":"charge","id":"ch_1","payment_intent":"pi_1"}"#) == .paymentIntent("pi_1"))
        #expect(
            try subject(#"{"object":"dispute","id":"dp_1","payment_intent":{"id":"pi_2"}}"#) == .paymentIntent("pi_2"))
        #expect(try subject(#"{"object":"invoice_payment","id":"inpay_1","invoice":"in_9"}"#) == .invoice("in_9"))
        #expect(try subject(#"{"object":"customer","id":"cus_1"}"#) == .none)
    }

    @Test func anEventsTimeOutsideTheAcceptedRangeIsNone() throws {
        func event(created: String) throws -> StripeEvent {
            let body = #"{"id":"evt_1","type":"t","created":\#(created),"data":{"object":{"object":"x"}}}"#
            return try JSONDecoder().decode(StripeEvent.self, from: Data(body.utf8))
        }
        #expect(try event(created: "1764201600").createdAt == Instant(millisecondsSince1970: 1_764_201_600_000))
        // 2^63 / 1000 + 1 overflows when multiplied; 2^53 seconds is past year 9999.
        #expect(try event(created: "9223372036854776").createdAt == nil)
        #expect(try event(created: "9007199254740992").createdAt == nil)
        // × 1000 wraps around 2^64 to 384 ms after 1970: an overflow, not an instant.
        #expect(try event(created: "18446744073709552").createdAt == nil)
        #expect(try event(created: "-1").createdAt == nil)
    }

    @Test func currencies() {
        #expect(StripeCurrency.milliunits(999, currency: "usd") == 9_990)
        #expect(StripeCurrency.milliunits(500, currency: "jpy") == 500_000)
        #expect(StripeCurrency.milliunits(1_234, currency: "KWD") == 1_234)
        #expect(StripeCurrency.milliunits(.max, currency: "usd") == nil)
        #expect(StripeCurrency.isCode("usd") && !StripeCurrency.isCode("USD") && !StripeCurrency.isCode("us"))
    }

    @Test func formEncoding() {
        #expect(
            FormEncoding.encode([("metadata[order]", "a b&c"), ("expand[]", "data.payments")])
                == "metadata%5Border%5D=a%20b%26c&expand%5B%5D=data.payments")
    }
}
