import SubLedgerCore
import Testing

/// What only signed transactions state (price, currency, storefront, app transaction id) survives a receipt's
/// copy of the same transaction, which states none of it, in whatever order the two arrive.
@Suite struct SignedDetailsTests {
    typealias F = Fixtures
    let alice = Fixtures.alice

    static func signed(price: Int64 = 9_990, appTransactionID: String = "704289572311559872") -> Transaction {
        var transaction = F.subscription("t1", chain: "t1", from: 0, to: 30)
        transaction.price = price
        transaction.currency = "USD"
        transaction.storefront = "USA"
        transaction.appTransactionID = appTransactionID
        return transaction
    }

    @Test func aLaterReceiptKeepsTheSignedPriceAndAppTransactionID() throws {
        let receiptCopy = F.subscription("t1", chain: "t1", from: 0, to: 30)
        let orders = [
            [
                (F.notification([Self.signed()], observedOn: 1), F.day(3)),
                (F.receipt(by: alice, [receiptCopy], observedOn: 2), F.day(3)),
            ],
            [
                (F.receipt(by: alice, [receiptCopy], observedOn: 2), F.day(3)),
                (F.notification([Self.signed()], observedOn: 1), F.day(3)),
            ],
        ]
        var states: [LedgerState] = []
        for inputs in orders {
            let state = try F.state(applying: inputs)
            let known = try #require(state.chain("t1")?.transactions.first)
            // The receipt is the newest version, and the signed details are still there.
            #expect(known.transaction.price == nil)
            #expect(known.details.price == 9_990)
            #expect(known.details.currency == "USD")
            #expect(known.details.storefront == "USA")
            #expect(known.details.appTransactionID == "704289572311559872")
            states.append(state)
        }
        #expect(states[0].chains == states[1].chains)
    }

    /// Two signed statements: the later one counts, in either order.
    @Test func theLaterSignedStatementWins() throws {
        let early = (F.notification([Self.signed(price: 9_990)], observedOn: 1), F.day(3))
        let late = (F.notification([Self.signed(price: 8_990)], observedOn: 2), F.day(3))
        let first = try F.state(applying: [early, late])
        let second = try F.state(applying: [late, early])
        #expect(first.chain("t1")?.transactions.first?.details.price == 8_990)
        #expect(first.chains == second.chains)
    }
}
