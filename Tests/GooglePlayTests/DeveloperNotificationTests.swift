import Foundation
import GooglePlay
import SubLedgerCore
import Testing

@Suite struct DeveloperNotificationTests {
    static func push(_ notification: String, extra: String = "") -> Data {
        let data = Data(notification.utf8).base64EncodedString()
        return Data(
            #"{"message":{"data":"\#(data)","messageId":"136969346945","publishTime":"2025-01-01T00:00:01Z","attributes":{"k":"v"}\#(extra)},"subscription":"projects/p/subscriptions/s"}"#
                .utf8)
    }

    @Test func subscriptionNotificationInAPushIsDecoded() throws {
        let body = Self.push(
            #"{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1735689600000","subscriptionNotification":{"version":"1.0","notificationType":2,"purchaseToken":"tok"}}"#
        )
        let (envelope, notification) = try DeveloperNotificationDecoder.decode(pushBody: body)
        #expect(envelope.subscription == "projects/p/subscriptions/s")
        #expect(envelope.message.messageId == "136969346945")
        #expect(envelope.message.attributes == ["k": "v"])
        #expect(notification.packageName == "com.example.app")
        #expect(notification.eventTime == Instant(millisecondsSince1970: 1_735_689_600_000))
        guard case .subscription(let subscription) = notification.content else {
            Issue.record("not a subscription notification")
            return
        }
        #expect(subscription.notificationType == .renewed)
        #expect(subscription.notificationType.name == "SUBSCRIPTION_RENEWED")
        #expect(subscription.purchaseToken == "tok")
    }

    @Test func eventTimeAsANumberAndSnakeCaseEnvelopeFieldsAreRead() throws {
        let data = Data(
            #"{"packageName":"p","eventTimeMillis":5,"testNotification":{"version":"1.0"}}"#.utf8
        ).base64EncodedString()
        let body = Data(#"{"message":{"data":"\#(data)","message_id":"9","publish_time":"t"}}"#.utf8)
        let (envelope, notification) = try DeveloperNotificationDecoder.decode(pushBody: body)
        #expect(envelope.message.messageId == "9")
        #expect(envelope.message.publishTime == "t")
        #expect(notification.eventTime == Instant(millisecondsSince1970: 5))
        #expect(notification.content == .test(TestNotification(version: "1.0")))
    }

    @Test func unknownNotificationTypeIsKeptNotRefused() throws {
        let body = Self.push(
            #"{"packageName":"p","eventTimeMillis":"1","subscriptionNotification":{"notificationType":99,"purchaseToken":"t"}}"#
        )
        let notification = try DeveloperNotificationDecoder.decode(pushBody: body).notification
        let type = try #require(notification.subscriptionNotification?.notificationType)
        #expect(type.rawValue == 99)
        #expect(type.name == nil)
        #expect(type.description == "SUBSCRIPTION_NOTIFICATION_TYPE_99")
        #expect(SubscriptionNotificationType(rawValue: 20).name == "SUBSCRIPTION_PENDING_PURCHASE_CANCELED")
        #expect(SubscriptionNotificationType.named.count == 17)
    }

    @Test func voidedAndOneTimeNotificationsAreDecoded() throws {
        let voided = try DeveloperNotificationDecoder.decode(
            pushBody: Self.push(
                #"{"packageName":"p","eventTimeMillis":"1","voidedPurchaseNotification":{"purchaseToken":"t","orderId":"GPA.1","productType":2,"refundType":1}}"#
            )
        ).notification
        #expect(
            voided.content
                == .voidedPurchase(
                    VoidedPurchaseNotification(purchaseToken: "t", orderId: "GPA.1", productType: 2, refundType: 1)))
        let oneTime = try DeveloperNotificationDecoder.decode(
            pushBody: Self.push(
                #"{"packageName":"p","eventTimeMillis":"1","oneTimeProductNotification":{"notificationType":1,"purchaseToken":"t","sku":"coins"}}"#
            )
        ).notification
        #expect(oneTime.oneTimeProductNotification?.sku == "coins")
        #expect(oneTime.oneTimeProductNotification?.notificationType == OneTimeProductNotification.purchased)
    }

    @Test func eachBadInputHasItsOwnError() {
        func code(_ body: Data) -> NotificationDecodingError.Code? {
            do {
                _ = try DeveloperNotificationDecoder.decode(pushBody: body)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code(Data(repeating: 0x20, count: DeveloperNotificationDecoder.maximumBodyBytes + 1)) == .tooLarge)
        #expect(code(Data([0x7B, 0xFF, 0x7D])) == .invalidText)
        #expect(code(Data(#"{"message":{"data":"a\u0000"}}"#.utf8)) == .malformedData)
        #expect(code(Data("[]".utf8)) == .malformedEnvelope)
        #expect(code(Data(#"{"message":{}}"#.utf8)) == .missingData)
        #expect(code(Data(#"{"message":{"data":"!!!"}}"#.utf8)) == .malformedData)
        #expect(code(Self.push(#"{"eventTimeMillis":"1"}"#)) == .malformedNotification)
        #expect(code(Self.push(#"{"packageName":"p","eventTimeMillis":"12x"}"#)) == .malformedNotification)
        // A NUL inside the decoded notification, and a purchase token with a control character.
        let nul = Data([0x7B, 0x00, 0x7D]).base64EncodedString()
        #expect(code(Data(#"{"message":{"data":"\#(nul)"}}"#.utf8)) == .invalidText)
        #expect(
            code(
                Self.push(
                    #"{"packageName":"p","subscriptionNotification":{"notificationType":2,"purchaseToken":"a\u0001b"}}"#
                )) == .malformedNotification)
        let big = String(repeating: "A", count: (DeveloperNotificationDecoder.maximumDataBytes / 3 + 2) * 4)
        #expect(code(Data(#"{"message":{"data":"\#(big)"}}"#.utf8)) == .tooLarge)
    }

    @Test func aNotificationEncodesAsGoogleWritesIt() throws {
        let notification = DeveloperNotification(
            packageName: "p", eventTimeMillis: 7,
            subscriptionNotification: SubscriptionNotification(notificationType: .purchased, purchaseToken: "t"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(notification), as: UTF8.self)
        #expect(text.contains(#""eventTimeMillis":"7""#))
        #expect(text.contains(#""notificationType":4"#))
        #expect(try DeveloperNotificationDecoder.decode(notificationData: Data(text.utf8)) == notification)
    }
}
