import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// Support looks a web purchase up by the ids the customer or Stripe's dashboard shows: the customer, the
/// subscription, an invoice and the charge that paid it, each answering the account and the chain.
@Suite struct StripeSupportLookupTests {
    typealias E2E = StripeEndToEndTests

    /// The field `name` of stripe-sim's object `id`.
    static func field(_ name: String, of id: String, in context: E2E.Context) throws -> String {
        let data = try #require(context.sim.control.object(id))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object[name] as? String)
    }

    @Test func aWebPurchaseIsFoundByItsCustomerSubscriptionInvoiceAndCharge() async throws {
        try await E2E.run { c in
            let subscription = try await c.buy("alice")
            await c.advance(days: 31)
            let customer = try Self.field("customer", of: subscription, in: c)
            let charge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            let invoices = try await c.transactions(of: subscription).map { String($0.prefix { $0 != " " }) }
            #expect(invoices.count == 2 && invoices.allSatisfy { $0.hasPrefix("in_") })
            // The charge paid the renewal's invoice.
            let paidInvoice = try #require(
                try await c.h.pool.query(
                    """
                    SELECT transaction_id FROM transactions
                    WHERE original_transaction_id = \(subscription) AND payload -> 'transaction' ->> 'paymentID' = \(charge)
                    """
                ).first?.decode(String.self, at: 0))
            #expect(paidInvoice == invoices[1])

            let admin = try await APIKeys(store: APIKeyStore(pool: c.h.pool)).create(bundleID: nil, name: "ops").secret
            for (id, kind) in [
                (customer, "stripe_customer"), (subscription, "stripe_subscription"), (invoices[0], "stripe_invoice"),
                (charge, "stripe_charge"),
            ] {
                let answer = try await c.h.client.call(.get, "/v1/admin/lookup/stripe/\(id)", key: admin)
                #expect(answer.status == .ok, "\(id): \(answer.json)")
                #expect(answer.json["kind"] as? String == kind)
                #expect(answer.json["query"] as? String == id)
                #expect(answer.json["account_id"] as? String == "alice", "\(id)")
                let chains = answer.json["chains"] as? [[String: Any]] ?? []
                #expect(chains.map { $0["original_transaction_id"] as? String } == [subscription], "\(id)")
                #expect(chains.first?["store"] as? String == "stripe")
            }

            // An id of no purchase of the app, and text that is no Stripe id.
            let unknown = try await c.h.client.call(.get, "/v1/admin/lookup/stripe/cus_nobody", key: admin)
            #expect(unknown.status == .notFound && unknown.json.errorCode == "stripe_id_not_found")
            let otherCharge = try await c.h.client.call(.get, "/v1/admin/lookup/stripe/ch_nobody", key: admin)
            #expect(otherCharge.status == .notFound && otherCharge.json.errorCode == "stripe_id_not_found")
            for refused in ["pm_123", "cus_", "cus_a%20b"] {
                let answer = try await c.h.client.call(.get, "/v1/admin/lookup/stripe/\(refused)", key: admin)
                #expect(answer.status == .badRequest && answer.json.errorCode == "invalid_stripe_id", "\(refused)")
            }
        }
    }
}
