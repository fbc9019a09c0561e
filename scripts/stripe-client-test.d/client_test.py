"""Stripe's Python library against stripe-sim (scripts/stripe-client-test)."""
import http.server
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import stripe

SECRET_KEY = "sk_test_client_test"
WEBHOOK_SECRET = "whsec_client_test"
received = []


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        received.append((body, self.headers.get("Stripe-Signature")))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def control(base, path, body=None):
    request = urllib.request.Request(
        base + path, data=json.dumps(body or {}).encode(), method="POST",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def expect(condition, what):
    if not condition:
        raise SystemExit("stripe-client-test: FAILED: " + what)
    print("ok:", what)


def main(sim_path):
    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    port = free_port()
    sim = subprocess.Popen(
        [sim_path, "--port", str(port), "--secret-key", SECRET_KEY, "--webhook-secret", WEBHOOK_SECRET,
         "--webhook-url", "http://127.0.0.1:%d/" % receiver.server_address[1]],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = "http://127.0.0.1:%d" % port
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/control/health", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        run(base)
    finally:
        sim.terminate()
        sim.wait(timeout=10)
        receiver.shutdown()


def run(base):
    stripe.api_key = SECRET_KEY
    stripe.api_base = base
    stripe.max_network_retries = 0

    product = stripe.Product.create(name="Pro", id="prod_clienttest")
    expect(product.id == "prod_clienttest" and product.object == "product", "Product.create")
    price = stripe.Price.create(product=product.id, unit_amount=999, currency="usd", recurring={"interval": "month"})
    expect(price.recurring.interval == "month" and price.unit_amount == 999, "Price.create with recurring")
    yen = stripe.Price.create(product=product.id, unit_amount=1200, currency="jpy", recurring={"interval": "month"})
    expect(yen.currency == "jpy", "a zero-decimal price")
    customer = stripe.Customer.create(email="alice@example.com", metadata={"account": "alice"})
    expect(customer.metadata["account"] == "alice", "Customer.create with metadata")

    session = stripe.checkout.Session.create(
        mode="subscription", line_items=[{"price": price.id, "quantity": 1}], customer=customer.id,
        client_reference_id="order-1", success_url="https://example.com/paid",
        subscription_data={"metadata": {"subledger_order": "order-1"}}, idempotency_key="order-1")
    expect(session.status == "open" and session.url.startswith(base), "checkout.Session.create")
    again = stripe.checkout.Session.create(
        mode="subscription", line_items=[{"price": price.id, "quantity": 1}], customer=customer.id,
        client_reference_id="order-1", success_url="https://example.com/paid", idempotency_key="order-1")
    expect(again.id == session.id, "the same Idempotency-Key answers the same session")
    control(base, "/control/checkout/sessions/%s/complete" % session.id)
    session = stripe.checkout.Session.retrieve(session.id)
    expect(session.status == "complete" and session.payment_status == "paid", "the session is paid")

    subscription = stripe.Subscription.retrieve(session.subscription)
    expect(subscription.status == "active", "Subscription.retrieve")
    expect(subscription.metadata["subledger_order"] == "order-1", "the subscription carries subscription_data.metadata")
    item = subscription["items"].data[0]
    expect(item.current_period_end > item.current_period_start, "the item states its period")
    invoices = stripe.Invoice.list(subscription=subscription.id)
    expect(len(invoices.data) == 1 and invoices.data[0].status == "paid", "Invoice.list(subscription=)")
    invoice = invoices.data[0]
    expect(invoice.parent.subscription_details.subscription == subscription.id, "the invoice names its subscription")
    expect(invoice.lines.data[0].pricing.price_details.product == product.id, "the line names its product")
    expanded = stripe.Invoice.list(subscription=subscription.id, expand=["data.payments"])
    expect(expanded.data[0].payments.data[0].status == "paid", "Invoice.list expands data.payments")
    payments = stripe.InvoicePayment.list(invoice=invoice.id)
    expect(len(payments.data) == 1 and payments.data[0].status == "paid", "InvoicePayment.list(invoice=)")
    intent = stripe.PaymentIntent.retrieve(payments.data[0].payment.payment_intent)
    charge = stripe.Charge.retrieve(intent.latest_charge)
    expect(charge.amount == 999 and charge.paid, "PaymentIntent and Charge retrieved")
    fee = stripe.BalanceTransaction.retrieve(charge.balance_transaction)
    expect(fee.fee == 59 and fee.net == 940, "Stripe's fee in the balance transaction")

    client = stripe.StripeClient(SECRET_KEY, base_addresses={"api": base})
    listed = client.v1.subscriptions.list(params={"customer": customer.id})
    expect([s.id for s in listed.data] == [subscription.id], "StripeClient v1 subscriptions.list")

    control(base, "/control/clock/advance", {"days": 31})
    invoices = stripe.Invoice.list(subscription=subscription.id)
    expect(len(invoices.data) == 2 and invoices.data[0].billing_reason == "subscription_cycle", "a renewal invoice")

    refund = stripe.Refund.create(charge=charge.id, amount=300)
    expect(refund.status == "succeeded" and refund.amount == 300, "Refund.create (partial)")
    expect(stripe.Charge.retrieve(charge.id).amount_refunded == 300, "the charge states the refund")

    once = stripe.Price.create(product=product.id, unit_amount=500, currency="jpy")
    expect(once.type == "one_time" and once.recurring is None, "Price.create without recurring: a one-time price")
    try:
        stripe.checkout.Session.create(
            mode="payment", line_items=[{"price": price.id, "quantity": 1}], success_url="https://example.com/paid")
        expect(False, "a recurring price in payment mode raises")
    except stripe.InvalidRequestError as error:
        expect(error.param == "line_items[0][price]", "payment mode refuses a recurring price")
    bought = stripe.checkout.Session.create(
        mode="payment", line_items=[{"price": once.id, "quantity": 1}], client_reference_id="order-2",
        customer_creation="always", success_url="https://example.com/paid", metadata={"subledger_order": "order-2"},
        payment_intent_data={"metadata": {"subledger_order": "order-2"}}, idempotency_key="order-2")
    expect(bought.mode == "payment" and bought.status == "open", "checkout.Session.create in payment mode")
    paid = control(base, "/control/checkout/sessions/%s/complete" % bought.id)
    bought = stripe.checkout.Session.retrieve(bought.id)
    expect(bought.status == "complete" and bought.payment_intent == paid["payment_intent"] and bought.subscription is None,
           "the payment-mode session is paid by a payment intent")
    once_intent = stripe.PaymentIntent.retrieve(bought.payment_intent)
    expect(once_intent.status == "succeeded" and once_intent.metadata["subledger_order"] == "order-2"
           and once_intent.amount == 500 and once_intent.currency == "jpy" and once_intent.customer == bought.customer,
           "the payment intent carries payment_intent_data.metadata")
    once_charge = stripe.Charge.retrieve(once_intent.latest_charge, expand=["balance_transaction"])
    expect(once_charge.amount == 500 and once_charge.balance_transaction.fee == 45,
           "the one-time charge with its expanded balance transaction")
    expect(stripe.InvoicePayment.list(payment={"type": "payment_intent", "payment_intent": once_intent.id}).data == [],
           "a one-time payment pays no invoice")
    stripe.Refund.create(payment_intent=once_intent.id)
    once_charge = stripe.Charge.retrieve(once_charge.id)
    expect(once_charge.refunded and once_charge.amount_refunded == 500, "Refund.create(payment_intent=) in full")

    events = list(stripe.Event.list(limit=3).auto_paging_iter())
    expect(len(events) > 10 and len({e.id for e in events}) == len(events), "Event.list paged with auto_paging_iter")
    expect(events[0].created >= events[-1].created, "events newest first")
    newer = stripe.Event.list(ending_before=events[5].id, limit=2)
    expect([e.id for e in newer.data] == [events[3].id, events[4].id], "ending_before returns the events just newer")

    now = control(base, "/control/clock/advance", {"seconds": 0})["now"]
    clock = stripe.test_helpers.TestClock.create(frozen_time=now, name="renewals")
    expect(clock.object == "test_helpers.test_clock" and clock.status == "ready" and clock.frozen_time == now
           and clock.deletes_after > now, "TestClock.create")
    on_clock = stripe.Customer.create(email="carol@example.com", test_clock=clock.id)
    expect(on_clock.test_clock == clock.id, "Customer.create(test_clock=)")
    clocked = stripe.Subscription.create(customer=on_clock.id, items=[{"price": price.id}])
    control(base, "/control/clock/advance", {"days": 31})
    expect(len(stripe.Invoice.list(subscription=clocked.id).data) == 1, "the control clock leaves a test clock's customer")
    advancing = stripe.test_helpers.TestClock.advance(clock.id, frozen_time=now + 31 * 86400)
    expect(advancing.status == "advancing", "TestClock.advance answers advancing")
    clock = stripe.test_helpers.TestClock.retrieve(clock.id)
    expect(clock.status == "ready" and clock.frozen_time == now + 31 * 86400, "TestClock.retrieve: ready, moved on")
    renewed = stripe.Invoice.list(subscription=clocked.id).data
    expect(len(renewed) == 2 and renewed[0].test_clock == clock.id, "advancing the clock renews its customer's subscription")
    expect(clock.id in [c.id for c in stripe.test_helpers.TestClock.list().data], "TestClock.list")
    expect(stripe.test_helpers.TestClock.delete(clock.id).deleted, "TestClock.delete")

    control(base, "/control/tax", {"percentage": 10, "tax_behavior": "exclusive"})
    taxed = stripe.checkout.Session.create(
        mode="payment", line_items=[{"price": once.id, "quantity": 1}], success_url="https://example.com/paid")
    expect(taxed.total_details.amount_tax == 50 and taxed.amount_total == 550, "a session states Stripe Tax's tax")
    control(base, "/control/tax", {"percentage": 0})

    try:
        stripe.Subscription.retrieve("sub_missing")
        expect(False, "a missing object raises")
    except stripe.InvalidRequestError as error:
        expect(error.code == "resource_missing" and error.http_status == 404, "InvalidRequestError resource_missing")
    try:
        stripe.Customer.list(api_key="sk_test_wrong")
        expect(False, "a wrong key raises")
    except stripe.AuthenticationError as error:
        expect(error.http_status == 401, "AuthenticationError")
    declining = stripe.Customer.create(email="bob@example.com")
    control(base, "/control/customers/%s/card" % declining.id, {"outcome": "decline"})
    try:
        stripe.Subscription.create(customer=declining.id, items=[{"price": price.id}])
        expect(False, "a declined card raises")
    except stripe.CardError as error:
        expect(error.code == "card_declined" and error.http_status == 402, "CardError card_declined")

    deadline = time.time() + 30
    while time.time() < deadline and len(received) < 10:
        time.sleep(0.1)
    types = set()
    for body, header in received:
        event = stripe.Webhook.construct_event(body, header, WEBHOOK_SECRET)
        types.add(event.type)
    expect("checkout.session.completed" in types and "invoice.paid" in types and "charge.refunded" in types
           and "payment_intent.succeeded" in types,
           "stripe.Webhook.construct_event accepts every delivery (%d)" % len(received))
    print("stripe-client-test: passed")


if __name__ == "__main__":
    main(sys.argv[1])
