import Foundation

/// Notification settings (where webhooks go, with the secret key that signs them), notifications (one per event
/// and setting, retried on Paddle's sandbox schedule), and their delivery bookkeeping.
extension PaddleWorld.State {
    /// Paddle's sandbox retries a failed notification three times within fifteen minutes: after 1, 5 and 9 minutes
    /// here, on the simulated clock.
    static let retryDelays: [Int64] = [60, 300, 540]

    static func subscribedEvents(_ names: Set<String>) -> PaddleJSON {
        .array(
            PaddleWorld.eventTypes.filter { names.contains($0.name) }.map { type in
                [
                    "name": .string(type.name), "group": .string(type.group),
                    "description": .string("Occurs when a \(type.name.replacingOccurrences(of: ".", with: " is "))."),
                    "available_versions": [1],
                ]
            })
    }

    mutating func addSetting(
        description: String, destination: String, events: Set<String>, secretKey: String?, includeSensitive: Bool,
        trafficSource: String
    ) -> PaddleJSON {
        let id = newID("ntfset_")
        let secret = secretKey ?? "pdl_\(id)_\(newID("").suffix(24))"
        settings.append(.init(id: id, destination: destination, secretKey: secret, events: events, active: true))
        let setting: PaddleJSON = [
            "id": .string(id), "description": .string(description), "type": "url", "destination": .string(destination),
            "active": true, "api_version": 1, "include_sensitive_fields": .bool(includeSensitive),
            "subscribed_events": Self.subscribedEvents(events), "endpoint_secret_key": .string(secret),
            "traffic_source": .string(trafficSource),
        ]
        insert(setting, kind: "notification_setting")
        return setting
    }

    static func eventNames(_ body: RequestFields, required: Bool) throws(PaddleFailure) -> Set<String>? {
        guard let names = try body.array("subscribed_events", maxCount: 200) else {
            if required { throw .invalidField("subscribed_events", "is required") }
            return nil
        }
        let known = Set(PaddleWorld.eventTypes.map(\.name))
        var chosen: Set<String> = []
        for (index, name) in names.enumerated() {
            // The SDK sends names; Paddle's own answers hold objects with a `name`.
            guard let text = name.string ?? name["name"]?.string, known.contains(text) else {
                throw .invalidField("subscribed_events[\(index)]", "is not an event type paddle-sim sends")
            }
            chosen.insert(text)
        }
        guard !chosen.isEmpty else { throw .invalidField("subscribed_events", "must name at least one event type") }
        return chosen
    }

    static func destination(_ body: RequestFields, required: Bool) throws(PaddleFailure) -> String? {
        guard let text = try body.string("destination", required: required, maxLength: 2048) else { return nil }
        guard text.hasPrefix("http://") || text.hasPrefix("https://"), URL(string: text)?.host != nil else {
            throw .invalidField("destination", "must be an http or https URL")
        }
        return text
    }

    mutating func createSetting(_ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        let description = try body.string("description", required: true, maxLength: 500) ?? ""
        guard let destination = try Self.destination(body, required: true) else {
            throw .invalidField("destination", "is required")
        }
        guard try body.oneOf("type", ["url"], required: true) == "url" else {
            throw .invalidField("type", "must be url")
        }
        let events = try Self.eventNames(body, required: true) ?? []
        if let version = try body.int("api_version", in: 0...100), version != 1 {
            throw .invalidField("api_version", "must be 1")
        }
        return addSetting(
            description: description, destination: destination, events: events, secretKey: nil,
            includeSensitive: try body.bool("include_sensitive_fields") ?? false,
            trafficSource: try body.oneOf("traffic_source", ["platform", "simulation", "all"]) ?? "platform")
    }

    mutating func updateSetting(_ id: String, _ body: RequestFields) throws(PaddleFailure) -> PaddleJSON {
        _ = try object(id, prefix: "ntfset_")
        guard let index = settings.firstIndex(where: { $0.id == id }) else { throw .notFound(id) }
        let description = try body.string("description", maxLength: 500)
        let destination = try Self.destination(body, required: false)
        let active = try body.bool("active")
        let events = try Self.eventNames(body, required: false)
        if let destination { settings[index].destination = destination }
        if let active { settings[index].active = active }
        if let events { settings[index].events = events }
        update(id, stamp: false) { setting in
            if let description { setting["description"] = .string(description) }
            if let destination { setting["destination"] = .string(destination) }
            if let active { setting["active"] = .bool(active) }
            if let events { setting["subscribed_events"] = Self.subscribedEvents(events) }
        }
        return objects[id] ?? .null
    }

    mutating func deleteSetting(_ id: String) throws(PaddleFailure) {
        _ = try object(id, prefix: "ntfset_")
        settings.removeAll { $0.id == id }
        objects[id] = nil
        idsByKind["notification_setting"]?.removeAll { $0 == id }
        notifications.removeAll { $0.settingID == id }
    }

    /// The webhook body: the event with the notification's id, as Paddle posts it.
    func payload(_ record: PaddleWorld.NotificationRecord) -> PaddleJSON {
        var event = objects[record.eventID] ?? .null
        event["notification_id"] = .string(record.id)
        return event
    }

    /// A notification as `GET /notifications` lists it.
    func rendered(_ record: PaddleWorld.NotificationRecord) -> PaddleJSON {
        let status =
            record.delivered
            ? "delivered" : record.failed ? "failed" : record.attempts > 0 ? "needs_retry" : "not_attempted"
        let event = objects[record.eventID] ?? .null
        return [
            "id": .string(record.id), "type": event["event_type"] ?? nil, "status": .string(status),
            "payload": payload(record), "occurred_at": event["occurred_at"] ?? nil,
            "origin": record.replay ? "replay" : "event",
            "delivered_at": record.delivered
                ? record.deliveredAt.map { .string(PaddleCalendar.format($0)) } ?? nil : nil,
            "replayed_at": record.replay ? .string(PaddleCalendar.format(record.createdAt)) : nil,
            "last_attempt_at": record.lastAttemptAt.map { .string(PaddleCalendar.format($0)) } ?? nil,
            "retry_at": record.attempts > 0 && !record.delivered && !record.failed
                ? .string(PaddleCalendar.format(record.nextAttemptAt)) : nil,
            "times_attempted": .int(Int64(record.attempts)), "notification_setting_id": .string(record.settingID),
        ]
    }

    mutating func replay(_ id: String) throws(PaddleFailure) -> PaddleJSON {
        guard id.hasPrefix("ntf_"), let record = notifications.first(where: { $0.id == id }) else {
            throw .notFound(id)
        }
        let copy = PaddleWorld.NotificationRecord(
            id: newID("ntf_"), settingID: record.settingID, eventID: record.eventID, nextAttemptAt: now, replay: true)
        notifications.append(copy)
        return ["notification_id": .string(copy.id)]
    }

    /// The notifications due now and not taken by another sender, each with its body, destination and key.
    mutating func dueNotifications() -> [(index: Int, url: String, body: Data, secretKey: String)] {
        var due: [(Int, String, Data, String)] = []
        for index in notifications.indices
        where !notifications[index].delivered && !notifications[index].failed && !notifications[index].inFlight
            && notifications[index].nextAttemptAt <= now
        {
            guard let setting = settings.first(where: { $0.id == notifications[index].settingID }), setting.active
            else { continue }
            notifications[index].inFlight = true
            due.append((index, setting.destination, payload(notifications[index]).data, setting.secretKey))
        }
        return due
    }

    /// Records an attempt: delivered on a 2xx, else retried on the schedule, then failed.
    mutating func record(_ index: Int, status: Int?) {
        guard notifications.indices.contains(index) else { return }
        notifications[index].attempts += 1
        notifications[index].inFlight = false
        notifications[index].lastAttemptAt = now
        if let status, (200..<300).contains(status) {
            notifications[index].delivered = true
            notifications[index].deliveredAt = now
        } else if notifications[index].attempts > Self.retryDelays.count {
            notifications[index].failed = true
        } else {
            notifications[index].nextAttemptAt = now + Self.retryDelays[notifications[index].attempts - 1]
        }
    }
}
