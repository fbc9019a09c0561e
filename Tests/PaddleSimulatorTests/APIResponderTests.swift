import Foundation
import Testing

@testable import PaddleSimulator

/// The API's envelope, refusals and list pages, answered by the responder without a server.
@Suite struct APIResponderTests {
    let api = APIResponder(world: PaddleWorld(now: 1_735_689_600, seed: 3, apiKey: "pdl_key", taxBasisPoints: 1000))

    func call(_ method: String, _ path: String, query: String = "", body: String = "", key: String? = "Bearer pdl_key")
        -> PaddleAnswer
    {
        api.respond(method: method, path: path, query: query, body: body, authorization: key)
    }

    @Test func refusesWithoutTheKeyInPaddlesErrorShape() {
        for (key, code) in [
            (nil, "authentication_missing"), ("Basic abc", "authentication_malformed"), ("Bearer nope", "forbidden"),
        ] {
            let answer = call("GET", "/customers", key: key)
            #expect(answer.status == 403)
            #expect(answer.body["error"]?["code"] == .string(code))
            #expect(answer.body["error"]?["type"] == "request_error")
            #expect(
                answer.body["error"]?["documentation_url"]
                    == .string("https://developer.paddle.com/errors/shared/\(code)"))
            #expect(answer.body["meta"]?["request_id"]?.string?.count == 36)
        }
    }

    @Test func createsWith201AndWrapsTheEntityInData() {
        let answer = call("POST", "/customers", body: #"{"email":"ada@example.com"}"#)
        #expect(answer.status == 201)
        #expect(answer.body["data"]?["email"] == "ada@example.com")
        #expect(answer.body["data"]?["id"]?.string?.hasPrefix("ctm_") == true)
        #expect(answer.body["data"]?["id"]?.string?.count == 30)
    }

    @Test func listsInPagesWithPaddlesPaginationMeta() {
        for index in 0..<3 { _ = call("POST", "/customers", body: #"{"email":"c\#(index)@example.com"}"#) }
        let first = call("GET", "/customers", query: "per_page=2")
        let pagination = first.body["meta"]?["pagination"]
        #expect(first.body["data"]?.array?.count == 2)
        #expect(pagination?["has_more"] == true && pagination?["per_page"] == 2 && pagination?["estimated_total"] == 3)
        let next = pagination?["next"]?.string ?? ""
        let after = next.components(separatedBy: "after=").last ?? ""
        #expect(after == first.body["data"]?.array?.last?["id"]?.string)
        let second = call("GET", "/customers", query: "per_page=2&after=\(after)")
        #expect(second.body["data"]?.array?.count == 1 && second.body["meta"]?["pagination"]?["has_more"] == false)
        let filtered = call("GET", "/customers", query: "email=c1%40example.com")
        #expect(filtered.body["data"]?.array?.map { $0["email"] } == ["c1@example.com"])
    }

    @Test func refusesHostileRequestsWithClearFourHundreds() {
        #expect(call("POST", "/customers", body: "{not json").body["error"]?["code"] == "bad_request")
        #expect(call("POST", "/customers", body: "[1]").status == 400)
        #expect(call("GET", "/nothing/here").body["error"]?["code"] == "invalid_url")
        #expect(call("GET", "/customers/ctm_01missing").status == 404)
        #expect(call("GET", "/customers", query: "per_page=100000").body["error"]?["code"] == "invalid_field")
        let long = String(repeating: "x", count: 10_000)
        #expect(call("POST", "/customers", body: #"{"email":"\#(long)@example.com"}"#).status == 400)
        let refused = call("POST", "/prices", body: #"{"description":"x","product_id":"pro_01x","unit_price":{}}"#)
        #expect(refused.status == 404)
        #expect(call("POST", "/subscriptions/sub_01missing/cancel").status == 404)
    }
}
