import Foundation
import Testing

@testable import AppStore

/// A notification's three signed payloads are read from the members the token's one scan located, without a
/// JSON decoder; these tests hold that reading to `JSONDecoder`'s: the same value whenever the plain reader
/// gives one, and nothing where the decoder refuses (so the fallback refuses as it always has).
@Suite struct PlainPayloadReadingTests {
    /// How a payload type's members are written: each member's name and kind.
    indirect enum Kind {
        case string, int, int64, bool, milliseconds, strings
        case object([(String, Kind)])
    }

    static let transactionCommitment: [(String, Kind)] = [
        ("billingPeriodNumber", .int), ("totalBillingPeriods", .int), ("commitmentExpiresDate", .milliseconds),
        ("commitmentPrice", .int64),
    ]
    static let transaction: [(String, Kind)] = [
        ("originalTransactionId", .string), ("transactionId", .string), ("webOrderLineItemId", .string),
        ("bundleId", .string), ("productId", .string), ("subscriptionGroupIdentifier", .string),
        ("purchaseDate", .milliseconds), ("originalPurchaseDate", .milliseconds), ("expiresDate", .milliseconds),
        ("quantity", .int), ("type", .string), ("appAccountToken", .string), ("inAppOwnershipType", .string),
        ("signedDate", .milliseconds), ("revocationReason", .int), ("revocationDate", .milliseconds),
        ("isUpgraded", .bool), ("offerType", .int), ("offerIdentifier", .string), ("environment", .string),
        ("storefront", .string), ("storefrontId", .string), ("transactionReason", .string), ("currency", .string),
        ("price", .int64), ("offerDiscountType", .string), ("appTransactionId", .string), ("offerPeriod", .string),
        ("revocationType", .string), ("revocationPercentage", .int), ("billingPlanType", .string),
        ("commitmentInfo", .object(transactionCommitment)),
    ]
    static let renewalCommitment: [(String, Kind)] = [
        ("commitmentAutoRenewProductId", .string), ("commitmentAutoRenewStatus", .int),
        ("commitmentRenewalBillingPlanType", .string), ("commitmentRenewalDate", .milliseconds),
        ("commitmentRenewalPrice", .int64),
    ]
    static let renewal: [(String, Kind)] = [
        ("expirationIntent", .int), ("originalTransactionId", .string), ("autoRenewProductId", .string),
        ("productId", .string), ("autoRenewStatus", .int), ("isInBillingRetryPeriod", .bool),
        ("priceIncreaseStatus", .int), ("gracePeriodExpiresDate", .milliseconds), ("offerType", .int),
        ("offerIdentifier", .string), ("signedDate", .milliseconds), ("environment", .string),
        ("recentSubscriptionStartDate", .milliseconds), ("renewalDate", .milliseconds), ("currency", .string),
        ("renewalPrice", .int64), ("offerDiscountType", .string), ("eligibleWinBackOfferIds", .strings),
        ("appAccountToken", .string), ("appTransactionId", .string), ("offerPeriod", .string),
        ("renewalBillingPlanType", .string), ("commitmentInfo", .object(renewalCommitment)),
    ]
    static let notification: [(String, Kind)] = [
        ("notificationType", .string), ("subtype", .string), ("notificationUUID", .string),
        (
            "data",
            .object([
                ("environment", .string), ("appAppleId", .int64), ("bundleId", .string), ("bundleVersion", .string),
                ("signedTransactionInfo", .string), ("signedRenewalInfo", .string), ("status", .int),
                ("consumptionRequestReason", .string),
                // Not a member of `data`, but a claim `PayloadClaims` reads there.
                ("externalPurchaseId", .string),
            ])
        ),
        ("version", .string), ("signedDate", .milliseconds),
        (
            "summary",
            .object([
                ("environment", .string), ("appAppleId", .int64), ("bundleId", .string), ("productId", .string),
                ("requestIdentifier", .string), ("storefrontCountryCodes", .strings), ("succeededCount", .int64),
                ("failedCount", .int64),
            ])
        ),
        (
            "externalPurchaseToken",
            .object([
                ("externalPurchaseId", .string), ("tokenCreationDate", .milliseconds), ("appAppleId", .int64),
                ("bundleId", .string), ("tokenType", .string), ("environment", .string),
            ])
        ),
        (
            "appData",
            .object([
                ("appAppleId", .int64), ("bundleId", .string), ("environment", .string),
                ("signedAppTransactionInfo", .string),
            ])
        ),
        // Not members of the notification, but claims `PayloadClaims` reads at the top.
        ("bundleId", .string), ("environment", .string),
    ]

    /// Writes random JSON objects of a payload type: random subsets of its members in random order, valid
    /// values and their edges, `null`s, wrong types, escapes, unknown members and whitespace.
    struct PayloadWriter {
        var random: SeededGenerator

        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

        mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &random)] }

        mutating func space() -> String { chance(80) ? "" : pick([" ", "\n", "\t", "\r\n  ", "  "]) }

        /// How often (percent) a value takes an edge form (an escape, a fraction, a number out of range, a
        /// wrong type, `null`); chosen per payload, so that some payloads are all plain and others seldom are.
        var noise = 10

        mutating func string() -> String {
            if chance(noise) {
                return pick([
                    #""a\nb""#, #""\u00e9""#, #""a\/b""#, #""\"q\"""#, #""\\""#, #""\ud83d\ude00""#, #""\u0000""#,
                    #""tab\there""#,
                ])
            }
            return pick([
                #""""#, #""com.example""#, #""2000000000000001""#, #""Sandbox""#, #""é""#, #""日本語""#, #""👍🏽""#,
                #""e\#u{0301}""#, #""eyJhbGciOiJFUzI1NiJ9.e30.c2ln""#, #""P1Y""#, #""MONTHLY""#, #""SANDBOX_1234""#,
                #""Auto-Renewable Subscription""#, "\"\u{7F}\"",
            ])
        }

        mutating func number() -> String {
            if chance(noise) {
                return pick([
                    "-0", "1.5", "1.0", "-2.5", "1e3", "1E+2", "2e-1", "9223372036854775808", "-9223372036854775809",
                    "18446744073709551616", "0.0",
                ])
            }
            return pick([
                "0", "1", "-1", "2", "5", "12", "42", "9223372036854775807", "-9223372036854775808", "2147483647",
                "2147483648", "10990", "119880", "-50000",
            ])
        }

        mutating func date() -> String {
            if chance(noise) {
                return pick([
                    "253402300799001", "-1", "1698148900000.5", "1698148900000.0", "1.6981489e12",
                    "9223372036854775807", "-9223372036854775808", "99999999999999999999", "-0",
                ])
            }
            return pick(["1698148900000", "0", "1", "253402300799000", "1700000000000", "1698149500000"])
        }

        mutating func wrongType() -> String {
            pick(["true", "false", #""1""#, "1", "{}", "[]", #"{"a":1}"#, #"["a"]"#, "1.5"])
        }

        mutating func value(_ kind: Kind) -> String {
            if chance(noise / 2) { return "null" }
            if chance(noise / 2) { return wrongType() }
            switch kind {
            case .string: return string()
            case .int, .int64: return number()
            case .bool: return pick(["true", "false"])
            case .milliseconds: return date()
            case .strings:
                let count = Int.random(in: 0...3, using: &random)
                var elements: [String] = []
                for _ in 0..<count { elements.append(chance(noise / 3) ? pick(["null", "1"]) : string()) }
                return "[" + space() + elements.joined(separator: space() + "," + space()) + space() + "]"
            case .object(let members): return object(members)
            }
        }

        /// Any JSON value, nested up to `depth` (unknown members carry these).
        mutating func anyValue(depth: Int) -> String {
            switch Int.random(in: 0..<(depth > 0 ? 6 : 4), using: &random) {
            case 0: return string()
            case 1: return number()
            case 2: return pick(["true", "false", "null"])
            case 3: return date()
            case 4:
                return "["
                    + (0..<Int.random(in: 0...2, using: &random)).map { _ in anyValue(depth: depth - 1) }.joined(
                        separator: ",") + "]"
            default:
                var seen: Set<String> = []
                var members: [String] = []
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    let name = pick(["a", "b", "bundleId", "items", "SKU"])
                    guard seen.insert(name).inserted else { continue }
                    members.append("\"\(name)\":" + anyValue(depth: depth - 1))
                }
                return "{" + members.joined(separator: ",") + "}"
            }
        }

        /// A key as JSON text, now and then with an escaped letter (it reads as the same key).
        mutating func key(_ name: String) -> String {
            guard chance(5), let first = name.unicodeScalars.first, first.isASCII else { return "\"\(name)\"" }
            let escaped = String(format: "\\u%04x", first.value)
            return "\"" + escaped + String(name.unicodeScalars.dropFirst()) + "\""
        }

        mutating func object(_ members: [(String, Kind)]) -> String {
            var parts: [String] = []
            var names: Set<String> = []
            for (name, kind) in members where chance(45) {
                names.insert(name)
                parts.append(key(name) + space() + ":" + space() + value(kind))
            }
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                let name = pick(["advancedCommerceInfo", "x", "unknownField", "é", "rawType", "data", "signedDate"])
                guard names.insert(name).inserted else { continue }
                parts.append(key(name) + space() + ":" + space() + anyValue(depth: 3))
            }
            parts.shuffle(using: &random)
            let separator = space() + "," + space()
            return "{" + space() + parts.joined(separator: separator) + space() + "}"
        }

        /// A payload: nearly always an object, now and then another JSON value.
        mutating func payload(_ members: [(String, Kind)]) -> String {
            noise = pick([0, 2, 5, 10, 30])
            return chance(2) ? pick(["[]", "null", #""x""#, "1"]) : space() + object(members) + space()
        }
    }

    /// Counts of one type's cases, to show the comparison ran on both paths.
    struct Tally {
        var plain = 0
        var fellBack = 0
        var refused = 0
    }

    /// Compares the plain reader with `JSONDecoder` over one generated payload.
    static func compare<Payload: PlainReadablePayload & Equatable>(
        _ type: Payload.Type, _ text: String, tally: inout Tally
    ) throws {
        let bytes = Data(text.utf8)
        guard case .success(let members) = UniqueKeyJSON.members(of: bytes) else {
            Issue.record("the generator wrote text the scan refuses: \(text)")
            return
        }
        let decoded = try? JSONDecoder().decode(Payload.self, from: bytes)
        let plain = members.flatMap { try? Payload(plain: $0) }
        if let plain {
            tally.plain += 1
            #expect(decoded == plain, "\(text)")
        } else if decoded == nil {
            tally.refused += 1
        } else {
            tally.fellBack += 1
        }
        if decoded == nil { #expect(plain == nil, "\(text)") }
        if Payload.self == ResponseBodyV2DecodedPayload.self {
            // The claims read before verification agree too (`UnverifiedNotificationV2`).
            let claims = members.flatMap { try? PayloadClaims(plain: $0) }
            let decodedClaims = try? JSONDecoder().decode(PayloadClaims.self, from: bytes)
            if let claims { #expect(claims == decodedClaims, "\(text)") }
            if decodedClaims == nil { #expect(claims == nil, "\(text)") }
        }
    }

    static func run<Payload: PlainReadablePayload & Equatable>(
        _ type: Payload.Type, members: [(String, Kind)], seed: UInt64
    ) throws -> Tally {
        var writer = PayloadWriter(random: SeededGenerator(seed: seed))
        var tally = Tally()
        for _ in 0..<1500 { try compare(type, writer.payload(members), tally: &tally) }
        return tally
    }

    @Test func plainTransactionsReadAsTheDecoderReadsThem() throws {
        let tally = try Self.run(JWSTransactionDecodedPayload.self, members: Self.transaction, seed: 0x7A_0001)
        // Both paths ran, many times: plain reads, fallbacks the decoder accepts, and refusals.
        #expect(tally.plain > 500 && tally.fellBack > 30 && tally.refused > 300, "\(tally)")
    }

    @Test func plainRenewalInfoReadsAsTheDecoderReadsIt() throws {
        let tally = try Self.run(JWSRenewalInfoDecodedPayload.self, members: Self.renewal, seed: 0x7A_0002)
        #expect(tally.plain > 500 && tally.fellBack > 30 && tally.refused > 300, "\(tally)")
    }

    @Test func plainNotificationsReadAsTheDecoderReadsThem() throws {
        let tally = try Self.run(ResponseBodyV2DecodedPayload.self, members: Self.notification, seed: 0x7A_0003)
        #expect(tally.plain > 500 && tally.fellBack > 30 && tally.refused > 300, "\(tally)")
    }

    @Test(arguments: [
        "-9223372036854775808", "9223372036854775807", "0", "-1",
    ])
    func int64ExtremesAreReadPlainly(number: String) throws {
        let text = #"{"price":\#(number),"quantity":\#(number),"signedDate":1698148900000}"#
        let members = try #require(try UniqueKeyJSON.members(of: Data(text.utf8)).get())
        let plain = try JWSTransactionDecodedPayload(plain: members)
        #expect(plain == (try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: Data(text.utf8))))
        #expect(plain.price == Int64(number))
    }

    @Test(arguments: [
        "1698148900000.5", "-1", "253402300799001", "9223372036854775808", "1e3", "-0", #""1""#, "true",
    ])
    func datesOutsideThePlainFormFallBack(date: String) throws {
        let text = #"{"signedDate":\#(date)}"#
        let members = try #require(try UniqueKeyJSON.members(of: Data(text.utf8)).get())
        #expect(throws: CapturedJSONObject.NotPlain.self) { try JWSRenewalInfoDecodedPayload(plain: members) }
    }

    @Test func escapedStringsAreReadAsTheDecoderReadsThem() throws {
        let text = #"{"productId":"a\/b\u00e9\n\"\\","eligibleWinBackOfferIds":[ "x\"y" , "\ud83d\ude00", ""]}"#
        let members = try #require(try UniqueKeyJSON.members(of: Data(text.utf8)).get())
        let plain = try JWSRenewalInfoDecodedPayload(plain: members)
        #expect(plain.productID == "a/bé\n\"\\")
        #expect(plain.eligibleWinBackOfferIDs == ["x\"y", "😀", ""])
        #expect(plain == (try JSONDecoder().decode(JWSRenewalInfoDecodedPayload.self, from: Data(text.utf8))))
    }

    @Test func absentAndNullMembersAreBothNil() throws {
        for text in [#"{}"#, #"{"commitmentInfo":null,"price":null,"signedDate":null,"isUpgraded":null}"#] {
            let members = try #require(try UniqueKeyJSON.members(of: Data(text.utf8)).get())
            #expect(try JWSTransactionDecodedPayload(plain: members) == JWSTransactionDecodedPayload())
        }
        // An empty nested object is a present one, with every member absent.
        let empty = try #require(try UniqueKeyJSON.members(of: Data(#"{"data":{}}"#.utf8)).get())
        #expect(try ResponseBodyV2DecodedPayload(plain: empty).data == NotificationData())
    }

    /// Apple's published payloads take the plain path (so the fast path cannot silently never run), and read
    /// exactly as the JSON decoder reads them.
    @Test func applesVectorsAreReadPlainly() throws {
        func check<Payload: PlainReadablePayload & Equatable>(_ type: Payload.Type, model: String) throws {
            let bytes = try TestResources.model(model)
            let members = try #require(try UniqueKeyJSON.members(of: bytes).get(), "\(model)")
            let plain = try #require(try? Payload(plain: members), "\(model)")
            #expect(plain == (try JSONDecoder().decode(Payload.self, from: bytes)), "\(model)")
        }
        try check(JWSTransactionDecodedPayload.self, model: "signedTransaction")
        try check(JWSTransactionDecodedPayload.self, model: "signedTransactionWithRevocation")
        try check(JWSRenewalInfoDecodedPayload.self, model: "signedRenewalInfo")
        try check(ResponseBodyV2DecodedPayload.self, model: "signedNotification")
        try check(ResponseBodyV2DecodedPayload.self, model: "signedSummaryNotification")

        func checkToken<Payload: PlainReadablePayload & Equatable>(_ type: Payload.Type, token name: String) throws {
            let jws = try CompactJWS(TestResources.signedData(name))
            // The very function the verifier reads payloads with, through its generic `Payload`.
            let plain = try #require(SignedDataVerifier.plainPayload(jws, as: Payload.self), "\(name)")
            #expect(plain == (try JSONDecoder().decode(Payload.self, from: jws.payload)), "\(name)")
        }
        try checkToken(JWSTransactionDecodedPayload.self, token: "transactionInfo")
        try checkToken(JWSRenewalInfoDecodedPayload.self, token: "renewalInfo")
        try checkToken(ResponseBodyV2DecodedPayload.self, token: "testNotification")
        try checkToken(ResponseBodyV2DecodedPayload.self, token: "wrongBundleId")
        // App transactions keep the JSON decoder.
        let appTransaction = try CompactJWS(
            "\(Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8))).\(Base64URL.encode(Data(#"{"bundleId":"b"}"#.utf8))).c2ln"
        )
        #expect(SignedDataVerifier.plainPayload(appTransaction, as: AppTransaction.self) == nil)
        #expect(SignedDataVerifier.plainPayload(appTransaction, as: JWSTransactionDecodedPayload.self)?.bundleID == "b")
        let notification = try CompactJWS(TestResources.signedData("testNotification"))
        let members = try #require(notification.payloadMembers)
        let claims = try #require(try? PayloadClaims(plain: members))
        #expect(claims == PayloadClaims.read(notification.payload))
    }

    /// The scan locates members two levels deep and no further, and only in objects that are top-level
    /// members' values (not inside arrays).
    @Test func scanLocatesMembersTwoLevelsDeep() throws {
        let text = #" { "a" : { "b" : [ 1 , { "c" : 2 } ] , "d" : "x" } , "e" : [ { "f" : 3 } ] , "g" : { } } "#
        let members = try #require(try UniqueKeyJSON.members(of: Data(text.utf8)).get())
        #expect(
            members["a"].map { String(decoding: $0, as: UTF8.self) } == #"{ "b" : [ 1 , { "c" : 2 } ] , "d" : "x" }"#)
        #expect(members["e"].map { String(decoding: $0, as: UTF8.self) } == #"[ { "f" : 3 } ]"#)
        #expect(Set(members.members.keys) == ["a", "e", "g"])
        #expect(members.nestedMembers?.keys.sorted() == ["a"])
        let a = try #require(members.nestedMembers?["a"])
        #expect(Set(a.keys) == ["b", "d"])
        #expect(a["b"].map { String(decoding: members.text[$0], as: UTF8.self) } == "[ 1 , { \"c\" : 2 } ]")
        #expect(try UniqueKeyJSON.members(of: Data("[1]".utf8)).get() == nil)
        #expect(throws: UniqueKeyJSON.Failure.duplicateKey) {
            try UniqueKeyJSON.members(of: Data(#"{"a":{"b":1,"\u0062":2}}"#.utf8)).get()
        }
    }
}
