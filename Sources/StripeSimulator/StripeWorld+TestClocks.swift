/// Stripe's test clocks (`/v1/test_helpers/test_clocks`): a clock frozen at a time, whose customers' subscriptions
/// renew, retry and end as the clock is advanced, and not as the simulator's own clock moves.
///
/// The simulator keeps one time (`now`) for the objects it makes; a clock's customers' renewals and retries are
/// made at the clock's time while it advances, and the simulator's time is then where it was. An advance is done
/// when the request answers: the answer states `advancing` as Stripe's does, and `test_helpers.test_clock.advancing`
/// then `test_helpers.test_clock.ready` are emitted.
extension StripeWorld.State {
    static let testClockKind = "test_helpers.test_clock"
    /// Stripe deletes a test clock 30 days after it was made.
    static let testClockLifetime: Int64 = 30 * 86_400
    /// The latest time a clock may be frozen at or advanced to: 9999-12-31T23:59:59Z.
    static let latestFrozenTime: Int64 = 253_402_300_799

    /// A new test clock at `frozen_time` (seconds since 1970), named `name` if given.
    mutating func createTestClock(_ form: FormParameters) throws(StripeFailure) -> JSONValue {
        let frozen = try Self.frozenTime(form)
        let name = form.string("name")
        if let name, name.utf8.count > 300 || name.utf8.contains(0) {
            throw .invalid("Invalid name: at most 300 characters.", param: "name")
        }
        let clock: JSONValue = [
            "id": .string(newID("clock_")), "object": .string(Self.testClockKind), "created": .int(now),
            "deletes_after": .int(now + Self.testClockLifetime), "frozen_time": .int(frozen), "livemode": false,
            "name": JSONValue(name), "status": "ready", "status_details": [:],
        ]
        insert(clock)
        emit("test_helpers.test_clock.created", clock)
        return clock
    }

    /// Moves clock `id` on to `frozen_time`: its customers' subscriptions renew, retry a declined payment and end as
    /// the simulator's clock would move them. Answers the clock as it was while advancing.
    mutating func advanceTestClock(_ id: String, _ form: FormParameters) throws(StripeFailure) -> JSONValue {
        let clock = try object(id, kind: Self.testClockKind)
        let target = try Self.frozenTime(form)
        guard target > clock["frozen_time"]?.int ?? 0 else {
            throw .invalid(
                "The frozen_time must be after the test clock's current frozen_time.", param: "frozen_time")
        }
        update(id, emitting: "test_helpers.test_clock.advancing") { clock in
            clock["status"] = "advancing"
            clock["status_details"] = ["advancing": ["target_frozen_time": .int(target)]]
        }
        let answer = objects[id] ?? clock
        let simulatorTime = now
        advance(to: target, clock: id)
        now = simulatorTime
        update(id, emitting: "test_helpers.test_clock.ready") { clock in
            clock["status"] = "ready"
            clock["status_details"] = [:]
            clock["frozen_time"] = .int(target)
        }
        return answer
    }

    /// Deletes clock `id`; its customers and their subscriptions stay, on no clock from then on (the subscriptions
    /// follow the simulator's clock again).
    mutating func deleteTestClock(_ id: String) throws(StripeFailure) -> JSONValue {
        let clock = try object(id, kind: Self.testClockKind)
        for kind in ["customer", "subscription"] {
            for object in idsByKind[kind, default: []] where objects[object]?["test_clock"]?.string == id {
                update(object) { $0["test_clock"] = nil }
            }
        }
        objects[id] = nil
        idsByKind[Self.testClockKind]?.removeAll { $0 == id }
        emit("test_helpers.test_clock.deleted", clock)
        return ["id": .string(id), "object": .string(Self.testClockKind), "deleted": true]
    }

    /// The test clock `subscription`'s customer belongs to, if any.
    func testClock(ofSubscription subscription: String) -> String? {
        guard let customer = objects[subscription]?["customer"]?.string else { return nil }
        return objects[customer]?["test_clock"]?.string
    }

    private static func frozenTime(_ form: FormParameters) throws(StripeFailure) -> Int64 {
        guard let text = form.string("frozen_time"), let frozen = Int64(text), (0...latestFrozenTime).contains(frozen)
        else { throw .invalid("Missing or invalid frozen_time.", param: "frozen_time") }
        return frozen
    }
}
