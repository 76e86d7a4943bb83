package io.durablejournal.identity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.JournalException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Java-specific behaviour of the identity API: type mapping, errors, handles. */
class IdentityApiTest {
    private static final String OCCURRENCE = RuntimeIdentity.rootOccurrence("user-42".getBytes(StandardCharsets.UTF_8), 0);
    private static final String EXECUTION = RuntimeIdentity.actionExecution(OCCURRENCE, "reply");

    enum Color { RED, BLUE }

    private static String digest(Object... args) {
        return DurableIds.computeArgsDigest(Arrays.asList(args), Map.of());
    }

    private static JournalException nonCanonical(List<?> args, Map<String, ?> kwargs) {
        JournalException e = assertThrows(JournalException.class, () -> DurableIds.computeArgsDigest(args, kwargs));
        assertEquals(JournalException.Code.NON_CANONICAL_ARGUMENT, e.getCode(), e.getMessage());
        assertTrue(e.getMessage().contains("durable_id="), e.getMessage());
        return e;
    }

    @Test
    void integerTypesOfEqualValueAgree() {
        String expected = digest(7L);
        assertEquals(expected, digest(7));
        assertEquals(expected, digest((short) 7));
        assertEquals(expected, digest((byte) 7));
        assertEquals(expected, digest(BigInteger.valueOf(7)));
        assertNotEquals(expected, digest(7.0));
    }

    @Test
    void floatsAreWidenedExactlyAndNegativeZeroIsKept() {
        assertEquals(digest(1.5d), digest(1.5f));
        assertNotEquals(digest(0.0d), digest(-0.0d));
        assertNotEquals(digest(0.1d), digest(0.1f), "0.1f is not the double 0.1");
    }

    @Test
    void arraysAreListsAndTuplesAreNot() {
        String list = digest(List.of(1, 2, 3));
        assertEquals(list, digest((Object) new int[] {1, 2, 3}));
        assertEquals(list, digest((Object) new Long[] {1L, 2L, 3L}));
        assertNotEquals(list, digest(Tuple.of(1, 2, 3)));
    }

    @Test
    void mapAndSetOrderNeverMatters() {
        Map<String, Object> tree = new TreeMap<>(Map.of("a", 1, "b", Set.of("x", "y"), "c", List.of()));
        Map<String, Object> linked = new LinkedHashMap<>();
        linked.put("c", List.of());
        linked.put("b", new HashSet<>(List.of("y", "x")));
        linked.put("a", 1L);
        assertEquals(digest(tree), digest(linked));
        assertEquals(DurableIds.computeArgsDigest(List.of(), tree), DurableIds.computeArgsDigest(List.of(), linked));
    }

    @Test
    void unsupportedValuesNameTheirPath() {
        Map<String, Object> cfg = new HashMap<>();
        cfg.put("client", new Object());
        JournalException e = nonCanonical(List.of(), Map.of("cfg", CanonicalObject.of("app.Config", cfg)));
        assertTrue(e.getMessage().contains("argument kwargs['cfg'].client has no canonical encoding"), e.getMessage());
        e = nonCanonical(List.of(List.of(1, Map.of("k", new BigDecimal("1.0")))), Map.of());
        assertTrue(e.getMessage().contains("argument args[0][1]['k'] has"), e.getMessage());
        assertTrue(e.getMessage().contains("java.math.BigDecimal"), e.getMessage());
    }

    @Test
    void loneSurrogatesAreRejectedWithTheirPath() {
        JournalException e = nonCanonical(List.of("ok", "bad\uD800"), Map.of());
        assertTrue(e.getMessage().contains("argument args[1] has"), e.getMessage());
        e = nonCanonical(List.of(), Map.of("k\uDC00", 1));
        assertTrue(e.getMessage().contains("lone surrogate"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DurableIds.toolCallDurableId("x\uD800"));
    }

    @Test
    void nanIsRejectedByTheCoreWithItsPath() {
        JournalException e = nonCanonical(List.of(), Map.of("ratio", List.of(Double.NaN)));
        assertTrue(e.getMessage().contains("kwargs['ratio'][0]"), e.getMessage());
    }

    @Test
    void keysThatEncodeAlikeAreRejected() {
        Map<Object, Object> map = new HashMap<>();
        map.put(1, "int");
        map.put(1L, "long");
        nonCanonical(List.of(map), Map.of());
    }

    @Test
    void cyclesAreRejectedNotRecursed() {
        List<Object> cyclic = new ArrayList<>();
        cyclic.add(cyclic);
        JournalException e = nonCanonical(List.of(cyclic), Map.of());
        assertTrue(e.getMessage().contains("cyclic"), e.getMessage());
    }

    @Test
    void nestingLimit() {
        Object value = 1;
        for (int i = 0; i < CanonicalTree.MAX_NESTING; i++) {
            value = List.of(value);
        }
        assertEquals(16, digest(value).length());
        JournalException e = nonCanonical(List.of(List.of(value)), Map.of());
        assertTrue(e.getMessage().contains("nested more than 32 deep"), e.getMessage());
    }

    @Test
    void enumsAreObjectsOfTheirTypeByName() {
        assertEquals("{\"object\":{\"type\":\"io.durablejournal.identity.IdentityApiTest.Color\",\"fields\":{\"name\":{\"str\":\"RED\"}}}}",
                CanonicalTree.valueTreeJson(Color.RED));
        assertNotEquals(digest(Color.RED), digest(Color.BLUE));
    }

    @Test
    void supplementaryCharactersSurviveBothWays() {
        for (String id : List.of("call_1", "调用-🔧", "😀🚀", "订单\u0000尾")) {
            assertEquals("tool-call:" + id, DurableIds.toolCallDurableId(id));
            assertEquals(id, DurableIds.durableIdentityForCall("app.f", List.of(), Map.of(), id));
        }
        assertEquals(digest("🚀"), digest("\uD83D\uDE80"));
    }

    @Test
    void explicitIdIgnoresArgumentsAndEmptyIdsAreRejected() {
        assertEquals("by-name", DurableIds.durableIdentityForCall("app.f", List.of(new Object()), Map.of(), "by-name"));
        JournalException e = assertThrows(JournalException.class, () -> DurableIds.durableIdentityForCall("app.f", List.of(), Map.of(), ""));
        assertEquals(JournalException.Code.INVALID_ARGUMENT, e.getCode());
        assertEquals("app.f::" + digest(1), DurableIds.durableIdentityForCall("app.f", List.of(1), Map.of(), null));
    }

    @Test
    void theNativeRuleAsksForTheCallOnlyWhenItDerivesTheId() {
        // Explicit: neither the function id nor the arguments are looked at.
        assertEquals("named", DurableIds.durableIdentityForCall(null, List.of(new Object()), Map.of(), "named"));
        // Derived: the arguments' own error (thrown in Java, inside the native call) reaches the caller.
        JournalException e = assertThrows(JournalException.class,
                () -> DurableIds.durableIdentityForCall("app.f", List.of(new Object()), Map.of(), null));
        assertEquals(JournalException.Code.NON_CANONICAL_ARGUMENT, e.getCode());
        assertTrue(e.getMessage().contains("args[0]"), e.getMessage());
        NullPointerException npe = assertThrows(NullPointerException.class,
                () -> DurableIds.durableIdentityForCall(null, List.of(), Map.of(), null));
        assertTrue(npe.getMessage().contains("functionId"), npe.getMessage());
    }

    @Test
    void invalidRuntimeComponentsAreRejected() {
        JournalException e = assertThrows(JournalException.class, () -> RuntimeIdentity.emittedOccurrence(EXECUTION, -1));
        assertEquals(JournalException.Code.INVALID_ARGUMENT, e.getCode());
        assertTrue(e.getMessage().contains("must not be negative"), e.getMessage());
        e = assertThrows(JournalException.class, () -> RuntimeIdentity.actionExecution(OCCURRENCE, ""));
        assertTrue(e.getMessage().contains("action name is missing"), e.getMessage());
        assertThrows(NullPointerException.class, () -> RuntimeIdentity.rootOccurrence(null, 0));
        assertThrows(NullPointerException.class, () -> RuntimeIdentity.generatedCallId("ns", null, 0));
        assertThrows(NullPointerException.class, () -> DurableIds.computeArgsDigest(null, Map.of()));
    }

    @Test
    void equalPayloadEventsGetDistinctIdsAndReplayReproducesThem() {
        List<String> first = oneRoundOfTwoEqualEvents();
        assertEquals(first.size(), new HashSet<>(first).size());
        assertEquals(first, oneRoundOfTwoEqualEvents());
    }

    private static List<String> oneRoundOfTwoEqualEvents() {
        List<String> ids = new ArrayList<>();
        for (long seq = 0; seq < 2; seq++) {
            String occurrence = RuntimeIdentity.rootOccurrence("user-7".getBytes(StandardCharsets.UTF_8), seq);
            String execution = RuntimeIdentity.actionExecution(occurrence, "echo");
            try (ExecutionIdentity allocator = RuntimeIdentity.forExecution(execution)) {
                ids.addAll(List.of(occurrence, execution, allocator.emit(), allocator.emit(),
                        allocator.nextCallId("chat", "s"), allocator.nextCallId("chat", "s")));
            }
        }
        return ids;
    }

    @Test
    void reEmittingAnEventIsAnErrorAndUsesNoOrdinal() {
        try (ExecutionIdentity ids = RuntimeIdentity.forExecution(EXECUTION)) {
            String first = ids.emit();
            JournalException e = assertThrows(JournalException.class, () -> ids.emit(first));
            assertEquals(JournalException.Code.ILLEGAL_STATE, e.getCode());
            assertTrue(e.getMessage().contains(first), e.getMessage());
            assertEquals(RuntimeIdentity.emittedOccurrence(EXECUTION, 1), ids.emit());
        }
    }

    @Test
    void closedExecutionIdentityFailsFastAndCloseIsIdempotent() {
        ExecutionIdentity ids = RuntimeIdentity.forExecution(EXECUTION);
        ids.close();
        ids.close();
        assertThrows(IllegalStateException.class, ids::emit);
        assertThrows(IllegalStateException.class, () -> ids.nextCallId("chat", "s"));
    }

    @Test
    void concurrentEmitsHandOutEachOrdinalOnce() throws Exception {
        int threads = 8;
        int perThread = 50;
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (ExecutionIdentity ids = RuntimeIdentity.forExecution(EXECUTION)) {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        seen.add(ids.emit());
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Set<String> expected = new HashSet<>();
        for (int n = 0; n < threads * perThread; n++) {
            expected.add(RuntimeIdentity.emittedOccurrence(EXECUTION, n));
        }
        assertEquals(expected, seen);
    }
}
