import Foundation
import Paddle
import Testing

/// The entities of `Resources/paddle-fixtures.json`, as JSON objects to read or to spoil.
enum Fixtures {
    static func object(_ name: String) throws -> [String: Any] {
        let url = try #require(Bundle.module.url(forResource: "paddle-fixtures", withExtension: "json"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let resources = try #require(root["resources"] as? [String: Any])
        return try #require(resources[name] as? [String: Any])
    }

    static func data(_ name: String) throws -> Data {
        try JSONSerialization.data(withJSONObject: object(name))
    }

    /// The fixture with the value at `path` (keys, or indexes of arrays) replaced by `value`, or removed for `nil`.
    static func data(_ name: String, setting path: [Any], to value: Any?) throws -> Data {
        let changed = try #require(replace(in: try object(name), path: path[...], with: value))
        return try JSONSerialization.data(withJSONObject: changed)
    }

    /// An event of the events list (`{event_id, event_type, occurred_at, data}`) holding `entity`.
    static func event(type: String, entity: [String: Any], notificationID: String? = nil) throws -> Data {
        var event: [String: Any] = [
            "event_id": "evt_01hv8x2a3dk5yk6v6e1gqypv3h", "event_type": type,
            "occurred_at": "2024-04-12T10:18:49.738972Z", "data": entity,
        ]
        if let notificationID { event["notification_id"] = notificationID }
        return try JSONSerialization.data(withJSONObject: event)
    }

    private static func replace(in node: Any, path: ArraySlice<Any>, with value: Any?) -> Any? {
        guard let head = path.first else { return value ?? NSNull() }
        if var object = node as? [String: Any], let key = head as? String {
            if path.count == 1, value == nil {
                object[key] = nil
            } else {
                object[key] = replace(in: object[key] ?? NSNull(), path: path.dropFirst(), with: value)
            }
            return object
        }
        if var array = node as? [Any], let index = head as? Int, array.indices.contains(index) {
            array[index] = replace(in: array[index], path: path.dropFirst(), with: value) ?? NSNull()
            return array
        }
        return nil
    }
}
