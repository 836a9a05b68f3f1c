package io.orderflow.ops.powercut;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTarget;
import io.orderflow.ops.drill.LagWatch;
import io.orderflow.ops.drill.OrderTopicEvents;
import io.orderflow.ops.drill.OrderTopicEvents.Event;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What must hold of the platform after anything happened to it, judged only from what a user can read: order-service's
 * {@code GET /orders/{id}}, inventory-service's reservations and stock, analytics-service's minutes, the {@code orders}
 * topic through the Kafka protocol, and the Message-IDs the SMTP server received. So it judges the same way whatever
 * runs underneath (our broker or an Apache Kafka cluster, {@code ./run-platform} or docker compose).
 *
 * <p>Given the orders a client placed and what the platform acknowledged of each ({@link OrderJournal}), it waits for
 * every consumer group to catch up and every order to have inventory's answer, then checks:
 *
 * <ol>
 *   <li>every acknowledged order exists, in its last acknowledged state or one step later (inventory's answer, or a
 *       step that was asked for and never answered);
 *   <li>each order's events on {@code orders} are, one event id each, exactly the lifecycle its state implies, in
 *       order: {@code OrderCreated}, inventory's answer, then payment, shipment or cancellation; none invented (an
 *       order on the topic with the run's customer prefix that nobody placed, or a step nobody asked for);
 *   <li>inventory's answer for every order once: the sold-out SKU's orders rejected, the others confirmed;
 *   <li>inventory-service's effects once: each order's reservation in the state its order's status implies, and the
 *       run's SKU reserved and shipped exactly as many units as its orders hold;
 *   <li>notification-service's mails once by Message-ID: the Message-IDs received are exactly the mail-worthy events'
 *       ids ({@code <eventId@orderflow>}), copies of one mail allowed (the documented resend after a crash);
 *   <li>analytics-service counted each event once: per event type, the minutes the run spans add up to the distinct
 *       events on the topic that occurred in them (every order's, as analytics-service counts every order).
 * </ol>
 *
 * Stateless apart from its clients; one instance per check.
 */
public final class PlatformInvariants {
    /**
     * The events notification-service mails (its NotificationLedger: not OrderPaid, not OrderConfirmed), each once, with
     * Message-ID {@code <eventId@orderflow>}.
     */
    static final Set<String> MAILED = Set.of("OrderCreated", "OrderShipped", "OrderCancelled", "OrderRejected");

    private static final Map<String, String> EVENT_OF_STATUS = Map.of(
            "CREATED", "OrderCreated",
            "CONFIRMED", "OrderConfirmed",
            "REJECTED", "OrderRejected",
            "PAID", "OrderPaid",
            "SHIPPED", "OrderShipped",
            "CANCELLED", "OrderCancelled");
    private static final Map<String, String> RESERVATION_OF_STATUS = Map.of(
            "CONFIRMED", "RESERVED",
            "PAID", "RESERVED",
            "SHIPPED", "DEDUCTED",
            "CANCELLED", "RELEASED",
            "REJECTED", "REJECTED");

    private final DrillTarget target;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    public PlatformInvariants(DrillTarget target) {
        this.target = target;
    }

    /**
     * Waits up to {@code within} for the platform to catch up (every group's lag drained, inventory's answer shown for
     * every order placed), then checks every invariant into {@code report}. Mails are sent after their events are
     * consumed, so the mail check waits up to {@code within} as well for the missing ones.
     */
    public void check(DrillReport report, OrderJournal journal, Pop3Mailbox mailbox, Duration within)
            throws IOException, InterruptedException {
        OrderJournal.Run run = journal.run();
        awaitCaughtUp(report, journal.placed(), within);
        OrderTopicEvents topic = OrderTopicEvents.since(target.cluster(), run.sinceMillis(), Duration.ofSeconds(60));
        Map<String, OrderJournal.Order> byOrder = new HashMap<>();
        Map<String, OrderJournal.Order> unansweredCustomers = new HashMap<>();
        for (OrderJournal.Order order : journal.orders()) {
            if (order.orderId() != null) {
                byOrder.put(order.orderId(), order);
            } else if (order.placementUncertain()) {
                unansweredCustomers.put(order.customer(), order);
            }
        }

        // 1. every acknowledged order, in its last acknowledged state or one step on
        Map<String, String> status = new HashMap<>();
        List<String> lost = new ArrayList<>();
        List<String> wrongState = new ArrayList<>();
        for (OrderJournal.Order history : byOrder.values()) {
            JsonNode order = get(target.orderService().resolve("/orders/" + history.orderId()));
            if (order == null) {
                lost.add(history.orderId());
                continue;
            }
            String now = order.path("status").asText();
            status.put(history.orderId(), now);
            if (!allowed(history, now)) {
                wrongState.add(history.orderId() + " is " + now + " after " + history.acknowledged()
                        + (history.uncertain().isEmpty() ? "" : " and perhaps " + history.uncertain()));
            }
        }
        report.check(
                "every acknowledged order exists in its last acknowledged state or one step on",
                lost.isEmpty() && wrongState.isEmpty(),
                byOrder.size() + " orders acknowledged; missing: " + sample(lost) + "; in another state: "
                        + sample(wrongState));

        // 2. each order's events on the topic: its lifecycle, once each, in order; none invented
        List<String> wrongEvents = new ArrayList<>();
        List<String> invented = new ArrayList<>();
        // orders whose placement was uncertain and which the topic shows were placed: they hold stock like any other
        Map<String, OrderJournal.Order> uncertainPlaced = new HashMap<>();
        int placedUnanswered = 0;
        for (String orderId : topic.orders()) {
            List<Event> events = topic.events(orderId);
            OrderJournal.Order history = byOrder.get(orderId);
            if (history == null) {
                String customer = events.stream()
                        .filter(event -> event.type().equals("OrderCreated"))
                        .map(Event::customerId)
                        .findFirst()
                        .orElse(null);
                if (customer != null && unansweredCustomers.containsKey(customer)) {
                    placedUnanswered++;
                    uncertainPlaced.put(orderId, unansweredCustomers.get(customer));
                    continue;
                }
                if (customer != null && !customer.startsWith(run.customerPrefix())) {
                    continue; // not this run's order
                }
                invented.add(orderId + " " + types(events));
                continue;
            }
            List<String> expected = lifecycle(
                    status.get(orderId),
                    history.acknowledged().contains("PAID")
                            || history.uncertain().contains("PAID"));
            if (!types(events).equals(expected)) {
                wrongEvents.add(orderId + " has " + types(events) + ", its status " + status.get(orderId) + " means "
                        + expected);
            }
        }
        List<String> missingFromTopic = byOrder.keySet().stream()
                .filter(order -> !topic.orders().contains(order))
                .toList();
        report.check(
                "each acknowledged change is on orders once and in order, none invented",
                wrongEvents.isEmpty() && invented.isEmpty() && missingFromTopic.isEmpty(),
                topic.records() + " records, " + topic.orders().size() + " orders (" + placedUnanswered
                        + " of uncertain placement, placed); wrong: " + sample(wrongEvents)
                        + "; invented: " + sample(invented) + "; acknowledged and absent: "
                        + sample(missingFromTopic));

        // 3. inventory's answer once, by SKU
        List<String> wrongAnswers = new ArrayList<>();
        for (OrderJournal.Order history : byOrder.values()) {
            String now = status.get(history.orderId());
            if (now == null) {
                continue;
            }
            boolean rejected = now.equals("REJECTED");
            if (rejected != history.sku().equals(OrderTraffic.SOLD_OUT) || now.equals("CREATED")) {
                wrongAnswers.add(history.orderId() + " of " + history.sku() + " is " + now);
            }
        }
        report.check(
                "the saga answered every order once: the sold-out SKU's rejected, every other confirmed",
                wrongAnswers.isEmpty(),
                "wrong: " + sample(wrongAnswers));

        // 4. inventory's effects once, over every order that exists: the acknowledged ones and those whose uncertain
        // placement happened
        Map<String, OrderJournal.Order> existing = new HashMap<>(byOrder);
        for (Map.Entry<String, OrderJournal.Order> placed : uncertainPlaced.entrySet()) {
            JsonNode order = get(target.orderService().resolve("/orders/" + placed.getKey()));
            if (order != null) {
                status.put(placed.getKey(), order.path("status").asText());
                existing.put(placed.getKey(), placed.getValue());
            }
        }
        List<String> wrongReservations = new ArrayList<>();
        long held = 0;
        long shipped = 0;
        for (Map.Entry<String, OrderJournal.Order> entry : existing.entrySet()) {
            String orderId = entry.getKey();
            OrderJournal.Order history = entry.getValue();
            String now = status.get(orderId);
            if (now == null || now.equals("CREATED")) {
                continue;
            }
            JsonNode reservation = get(target.inventoryService().resolve("/reservations/" + orderId));
            String state =
                    reservation == null ? "none" : reservation.path("status").asText();
            if (!state.equals(RESERVATION_OF_STATUS.get(now))) {
                wrongReservations.add(orderId + " " + now + " has reservation " + state);
            }
            if (history.sku().equals(OrderTraffic.SOLD_OUT)) {
                continue;
            }
            if (now.equals("CONFIRMED") || now.equals("PAID")) {
                held++;
            } else if (now.equals("SHIPPED")) {
                shipped++;
            }
        }
        String sku = run.sku();
        long stockOnHandBefore = run.stockOnHand();
        JsonNode stock = get(target.inventoryService().resolve("/inventory/" + sku));
        long reserved = stock == null ? -1 : stock.path("reserved").asLong();
        long onHand = stock == null ? -1 : stock.path("onHand").asLong();
        report.check(
                "inventory's effects once: every reservation as its order stands, the stock moved once per order",
                wrongReservations.isEmpty() && reserved == held && onHand == stockOnHandBefore - shipped,
                sku + " reserved " + reserved + " for " + held + " confirmed or paid orders (" + uncertainPlaced.size()
                        + " of uncertain placement among the orders), on hand " + onHand
                        + " after " + shipped + " shipped from " + stockOnHandBefore + "; reservations off: "
                        + sample(wrongReservations));

        // 5. mails once by Message-ID
        Set<String> expectedMails = new HashSet<>();
        Map<String, String> mailOf = new HashMap<>();
        for (String orderId : topic.orders()) {
            if (!byOrder.containsKey(orderId)) {
                continue;
            }
            topic.events(orderId).stream()
                    .filter(event -> MAILED.contains(event.type()))
                    .forEach(event -> {
                        expectedMails.add("<" + event.eventId() + "@orderflow>");
                        mailOf.put("<" + event.eventId() + "@orderflow>", orderId + " " + event.type());
                    });
        }
        long mailsFrom = System.nanoTime();
        long mailsDeadline = mailsFrom + within.toNanos();
        List<String> mails = mailbox.messageIds();
        while (!new HashSet<>(mails).containsAll(expectedMails) && System.nanoTime() < mailsDeadline) {
            Thread.sleep(500); // the SMTP server's inbox, read until the mails due have arrived
            mails = mailbox.messageIds();
        }
        Set<String> receivedOnce = new HashSet<>(mails);
        Set<String> receivedOfThese =
                receivedOnce.stream().filter(expectedMails::contains).collect(Collectors.toSet());
        Set<String> missingMails = new HashSet<>(expectedMails);
        missingMails.removeAll(receivedOnce);
        long copies = mails.size() - receivedOnce.size();
        report.check(
                "every mail sent once by Message-ID",
                missingMails.isEmpty(),
                expectedMails.size() + " mails due, " + receivedOfThese.size()
                        + String.format(" received after %.1f s (", (System.nanoTime() - mailsFrom) / 1e9) + copies
                        + " copies of one Message-ID, the resend a crash between sending and marking allows);"
                        + " missing: " + sample(describe(missingMails, mailOf)));

        // 6. analytics counted each event once: every event that occurred in the run's whole minutes, whoever's
        // order it is (analytics-service counts them all), read from the first minute's start (a record is
        // timestamped when the relay sends it, after its event occurred)
        Instant from = Instant.ofEpochMilli(run.sinceMillis()).truncatedTo(ChronoUnit.MINUTES);
        Instant to = Instant.now().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1));
        OrderTopicEvents minutes =
                OrderTopicEvents.since(target.cluster(), from.toEpochMilli(), Duration.ofSeconds(60));
        Map<String, Long> onTopic = new HashMap<>();
        for (String orderId : minutes.orders()) {
            for (Event event : minutes.events(orderId)) {
                if (!event.occurredAt().isBefore(from) && event.occurredAt().isBefore(to)) {
                    onTopic.merge(event.type(), 1L, Long::sum);
                }
            }
        }
        Map<String, Long> counted = analyticsCounts(from, to);
        report.check(
                "analytics-service counted each event once",
                counted.equals(onTopic),
                "from " + from + " to " + to + " counted " + new TreeMap<>(counted) + ", distinct events on orders "
                        + new TreeMap<>(onTopic));
    }

    /** Reads the lag until every group has caught up and order-service shows inventory's answer for every order. */
    private void awaitCaughtUp(DrillReport report, List<OrderJournal.Order> placed, Duration within)
            throws InterruptedException {
        LagWatch lag = LagWatch.of(
                target.lagMonitor(),
                target.allConsumers().keySet().stream().sorted().toList());
        long started = System.nanoTime();
        long deadline = started + within.toNanos();
        boolean caughtUp;
        do {
            lag.sample();
            caughtUp = lag.allCaughtUp() && everyOrderAnswered(placed);
            if (!caughtUp) {
                Thread.sleep(1_000); // one lag reading a second, as every drill reads it
            }
        } while (!caughtUp && System.nanoTime() < deadline);
        report.chart(lag.chart(60));
        report.check(
                "every group caught up and every order answered",
                caughtUp,
                String.format("%s, after %.1f s", lag.latestLags(), (System.nanoTime() - started) / 1e9));
    }

    /**
     * True once order-service shows inventory's answer for every order it has (none still CREATED). An order it does
     * not have is not waited for: it is lost, which the first check reports.
     */
    private boolean everyOrderAnswered(List<OrderJournal.Order> placed) throws InterruptedException {
        try {
            for (OrderJournal.Order order : placed) {
                JsonNode shown = get(target.orderService().resolve("/orders/" + order.orderId()));
                if (shown != null && shown.path("status").asText().equals("CREATED")) {
                    return false;
                }
            }
            return true;
        } catch (IOException unreachable) {
            return false;
        }
    }

    /** The status an order may have now after what was acknowledged and asked of it. */
    private static boolean allowed(OrderJournal.Order history, String now) {
        String last = history.lastAcknowledged();
        if (now.equals(last) || history.uncertain().contains(now)) {
            return true;
        }
        return "CREATED".equals(last) && (now.equals("CONFIRMED") || now.equals("REJECTED"));
    }

    /** The event types an order in {@code status} has on {@code orders}, in order; {@code paid}: before a cancel. */
    static List<String> lifecycle(String status, boolean paid) {
        if (status == null) {
            return List.of();
        }
        List<String> path = switch (status) {
            case "CREATED" -> List.of("CREATED");
            case "CONFIRMED" -> List.of("CREATED", "CONFIRMED");
            case "REJECTED" -> List.of("CREATED", "REJECTED");
            case "PAID" -> List.of("CREATED", "CONFIRMED", "PAID");
            case "SHIPPED" -> List.of("CREATED", "CONFIRMED", "PAID", "SHIPPED");
            case "CANCELLED" ->
                paid
                        ? List.of("CREATED", "CONFIRMED", "PAID", "CANCELLED")
                        : List.of("CREATED", "CONFIRMED", "CANCELLED");
            default -> List.of(status);
        };
        return path.stream()
                .map(step -> EVENT_OF_STATUS.getOrDefault(step, step))
                .toList();
    }

    private static List<String> types(List<Event> events) {
        return events.stream().map(Event::type).toList();
    }

    private Map<String, Long> analyticsCounts(Instant from, Instant to) throws IOException, InterruptedException {
        Map<String, Long> counts = new HashMap<>();
        JsonNode minutes = get(target.analyticsService().resolve("/analytics/minutes?from=" + from + "&to=" + to));
        if (minutes == null) {
            return counts;
        }
        for (JsonNode minute : minutes) {
            minute.path("events")
                    .fields()
                    .forEachRemaining(
                            type -> counts.merge(type.getKey(), type.getValue().asLong(), Long::sum));
        }
        return counts;
    }

    private JsonNode get(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return answer.statusCode() == 200 ? json.readTree(answer.body()) : null;
    }

    /**
     * The first few missing mails with their order, event type and what notification-service lists for the order
     * ({@code GET /notifications?orderId=}): where a mail stands that never arrived.
     */
    private List<String> describe(Set<String> missing, Map<String, String> mailOf)
            throws IOException, InterruptedException {
        List<String> described = new ArrayList<>();
        for (String messageId : missing) {
            String what = mailOf.get(messageId);
            if (described.size() < 3) {
                JsonNode listed = get(target.notificationService()
                        .resolve("/notifications?orderId=" + what.substring(0, what.indexOf(' '))));
                described.add(messageId + " " + what + ", notification-service lists " + listed);
            } else {
                described.add(messageId + " " + what);
            }
        }
        return described;
    }

    private static String sample(List<String> items) {
        if (items.isEmpty()) {
            return "none";
        }
        return items.size() + " (" + String.join("; ", items.subList(0, Math.min(3, items.size())))
                + (items.size() > 3 ? "; ..." : "") + ")";
    }
}
