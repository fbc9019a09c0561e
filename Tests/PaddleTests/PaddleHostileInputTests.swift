import Foundation
import Paddle
import SubLedgerCore
import Testing

/// Whatever a body holds, reading it ends in a value or a `PaddleWireError` naming the field: never a trap.
@Suite struct PaddleHostileInputTests {
    static func transactionError(_ path: [Any], _ value: Any?) throws -> PaddleWireError? {
        let data = try Fixtures.data("transaction_documented", setting: path, to: value)
        do {
            _ = try PaddleDecoding.decode(PaddleTransaction.self, from: data)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        "-1", "99999999999999999999", "9223372036854775808", "1e3", "10.5", " 100", "100 ", "+100", "", "0x10", "１",
        "1_000", "\u{0}1",
    ])
    func moneyThatIsNotNonNegativeMinorUnitsIsRefused(_ amount: String) throws {
        #expect(
            try Self.transactionError(["details", "totals", "tax"], amount)
                == .init(.invalidField, "details.totals.tax"))
        #expect(PaddleMoney.minorUnits(amount) == nil)
    }

    @Test func moneyAsAJSONNumberIsRefused() throws {
        for value: Any in [570, 1e300, -1, true, ["570"]] {
            #expect(
                try Self.transactionError(["details", "totals", "tax"], value)
                    == .init(.invalidField, "details.totals.tax"))
        }
        #expect(
            try Self.transactionError(["details", "payout_totals", "earnings"], "-3012")
                == .init(.invalidField, "details.payout_totals.earnings"))
        #expect(
            try Self.transactionError(["details", "totals", "total"], nil)
                == .init(.missingField, "details.totals.total"))
    }

    @Test func theLargestMoneyIsReadAndItsMilliunitsDoNotWrap() {
        #expect(PaddleMoney.minorUnits("9223372036854775807") == .max)
        #expect(PaddleMoney.minorUnits("0") == 0 && PaddleMoney.minorUnits("0007") == 7)
        #expect(PaddleMoney.milliunits(.max, currency: "USD") == nil)
        #expect(PaddleMoney.milliunits(1099, currency: "USD") == 10_990)
        #expect(PaddleMoney.milliunits(100, currency: "JPY") == 100_000)
    }

    @Test(arguments: [
        "2024-02-30T10:00:00Z", "2024-04-12", "2024-04-12T10:18:47", "yesterday", "1712917128", "0001-01-01T00:00:00Z",
        "1969-12-31T23:59:59Z", "2024-04-12T24:00:00Z", "2024-04-12T10:18:47.Z", "2024-04-12T10:18:47Z\u{0}",
        "２０２４-04-12T10:18:47Z", String(repeating: "2024-04-12T10:18:47.", count: 10) + "0Z",
    ])
    func timesThatAreNotRFC3339WithinTheAcceptedRangeAreRefused(_ text: String) throws {
        #expect(try Self.transactionError(["billed_at"], text) == .init(.invalidField, "billed_at"))
        #expect(
            try Self.transactionError(["billing_period", "ends_at"], text)
                == .init(.invalidField, "billing_period.ends_at"))
    }

    @Test func timeOffsetsAndFractionsAreRead() throws {
        let data = try Fixtures.data(
            "transaction_documented", setting: ["billed_at"], to: "2024-04-12T12:18:48.2+02:00")
        let transaction = try PaddleDecoding.decode(PaddleTransaction.self, from: data)
        #expect(transaction.billedAt == Instant(millisecondsSince1970: 1_712_917_128_200))
    }

    @Test func aPeriodThatEndsBeforeItStartsIsRefused() throws {
        #expect(
            try Self.transactionError(["billing_period", "ends_at"], "2024-04-01T00:00:00Z")
                == .init(.invalidField, "billing_period.ends_at"))
    }

    @Test func idsThatAreNotIdentifiersAreRefused() throws {
        for id in [String(repeating: "t", count: 65), "txn_\u{0}1", "", "txn 1", "txn_é", "txn/../1"] {
            #expect(try Self.transactionError(["id"], id) == .init(.invalidField, "id"), "\(id.prefix(10))")
            #expect(
                try Self.transactionError(["items", 0, "price", "product_id"], id)
                    == .init(.invalidField, "items[0].price.product_id"))
        }
        #expect(try Self.transactionError(["id"], 42) == .init(.invalidField, "id"))
        #expect(try Self.transactionError(["id"], nil) == .init(.missingField, "id"))
        #expect(try Self.transactionError(["customer_id"], String(repeating: "c", count: 64)) == nil)
    }

    @Test func currencyCodesAreThreeUppercaseLetters() throws {
        for code: Any in ["eur", "EU", "EURO", "E1R", "", "ÉUR", 978] {
            #expect(try Self.transactionError(["currency_code"], code) == .init(.invalidField, "currency_code"))
        }
        #expect(
            try Self.transactionError(["details", "totals", "currency_code"], "usd")
                == .init(.invalidField, "details.totals.currency_code"))
    }

    @Test func statusesAndOriginsPaddleAddsLaterAreKeptRaw() throws {
        let data = try Fixtures.data("transaction_documented", setting: ["status"], to: "refunded_by_magic")
        let transaction = try PaddleDecoding.decode(PaddleTransaction.self, from: data)
        #expect(transaction.status.rawValue == "refunded_by_magic" && !transaction.status.isPaid)
        // …but a status must still be text SubLedger can keep.
        #expect(try Self.transactionError(["status"], "paid\u{0}") == .init(.invalidField, "status"))
        #expect(
            try Self.transactionError(["status"], String(repeating: "x", count: 65)) == .init(.invalidField, "status"))
        #expect(try Self.transactionError(["origin"], 7) == .init(.invalidField, "origin"))
    }

    @Test func countsOutOfRangeAreRefused() throws {
        for quantity: Any in [0, -1, 1e30, "1", 2_000_000_000] {
            #expect(
                try Self.transactionError(["items", 0, "quantity"], quantity)
                    == .init(.invalidField, "items[0].quantity"), "\(quantity)")
        }
        for frequency: Any in [0, 1001, 1.5, "1"] {
            #expect(
                try Self.transactionError(["items", 0, "price", "billing_cycle", "frequency"], frequency)
                    == .init(.invalidField, "items[0].price.billing_cycle.frequency"), "\(frequency)")
        }
        let manyItems = Array(
            repeating: try #require(Fixtures.object("transaction_documented")["items"] as? [Any])[0], count: 101)
        #expect(try Self.transactionError(["items"], manyItems) == .init(.invalidField, "items"))
    }

    @Test func customDataKeepsOnlyTextItCanStore() throws {
        let data = try Fixtures.data(
            "transaction_documented", setting: ["custom_data"],
            to: [
                "subledger_order": "order\u{0}7", "long": String(repeating: "v", count: 1025), "ok": "yes",
                "nested": ["a": "b"],
            ])
        let transaction = try PaddleDecoding.decode(PaddleTransaction.self, from: data)
        #expect(transaction.customData == ["ok": "yes"])
        for value: Any in ["text", 1, [1, 2]] {
            #expect(try Self.transactionError(["custom_data"], value) == .init(.invalidField, "custom_data"))
        }
    }

    @Test func bodiesThatAreNotJSONObjectsAreMalformed() {
        let bodies: [Data] = [
            Data([0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D]),  // {"id":"<invalid UTF-8>"}
            Data("".utf8), Data("null".utf8), Data("[]".utf8), Data("{\"id\": ".utf8), Data("\u{0}".utf8),
            Data(String(repeating: "[", count: 100_000).utf8),
        ]
        for body in bodies {
            #expect(throws: PaddleWireError.self) { try PaddleDecoding.decode(PaddleTransaction.self, from: body) }
            #expect(throws: PaddleWireError.self) { try PaddleDecoding.decode(PaddleEvent.self, from: body) }
        }
        #expect(throws: PaddleWireError(.malformedJSON, "")) {
            try PaddleDecoding.decode(PaddleTransaction.self, from: Data("[1]".utf8))
        }
    }

    @Test func aBodyOverTheLimitIsNotRead() {
        let body = Data(count: PaddleDecoding.maximumBodyBytes + 1)
        #expect(throws: PaddleWireError(.tooLarge, "")) { try PaddleDecoding.decode(PaddleEvent.self, from: body) }
    }

    @Test func anEventOfAFollowedEntityWithBadDataIsRefused() throws {
        var entity = try Fixtures.object("transaction_simulated")
        entity["currency_code"] = "usd"
        #expect(throws: PaddleWireError(.invalidField, "data.currency_code")) {
            try PaddleDecoding.decode(
                PaddleEvent.self, from: Fixtures.event(type: "transaction.completed", entity: entity))
        }
        #expect(throws: PaddleWireError(.missingField, "data")) {
            try PaddleDecoding.decode(
                PaddleEvent.self,
                from: JSONSerialization.data(withJSONObject: [
                    "event_id": "evt_1", "event_type": "transaction.paid", "occurred_at": "2024-04-12T10:18:49Z",
                ]))
        }
        #expect(throws: PaddleWireError(.invalidField, "event_type")) {
            try PaddleDecoding.decode(
                PaddleEvent.self, from: Fixtures.event(type: "transaction.paid\u{0}", entity: entity))
        }
    }

    @Test func wireErrorsNameTheFieldNotTheValue() throws {
        let secret = "4242424242424242"
        let error = try #require(try Self.transactionError(["currency_code"], secret))
        #expect(!error.description.contains(secret) && error.description == "invalid_field: currency_code")
    }
}
