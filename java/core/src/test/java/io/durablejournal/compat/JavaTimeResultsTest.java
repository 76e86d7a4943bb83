package io.durablejournal.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.durablejournal.ActionStateSerde;
import io.durablejournal.CountingCall;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * java.time results (and objects holding them) are recorded and replayed, written exactly as
 * Flink Agents 0.3.1 writes them (same payload bytes), and a result either runtime recorded
 * replays in the other as the value that runtime replays from its own journal.
 */
class JavaTimeResultsTest {
    /** A result object with a java.time field, as a tool call might return. */
    public static final class Appointment {
        public String who;
        public Instant at;

        public Appointment() {}

        Appointment(String who, Instant at) {
            this.who = who;
            this.at = at;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Appointment && Objects.equals(who, ((Appointment) o).who) && Objects.equals(at, ((Appointment) o).at);
        }

        @Override
        public int hashCode() {
            return Objects.hash(who, at);
        }
    }

    static Stream<Object> results() {
        Instant instant = Instant.parse("2024-05-06T07:08:09.123456789Z");
        return Stream.of(
                instant,
                Instant.ofEpochSecond(-1, 1),
                LocalDate.of(2024, 2, 29),
                LocalDateTime.of(2024, 5, 6, 7, 8, 9, 123_000_000),
                LocalTime.of(23, 59, 59, 999_999_999),
                Duration.ofSeconds(90061, 7),
                Period.of(1, 2, 3),
                Year.of(2024),
                YearMonth.of(2024, 12),
                MonthDay.of(2, 29),
                ZoneId.of("Europe/Paris"),
                OffsetDateTime.of(2024, 5, 6, 7, 8, 9, 0, ZoneOffset.UTC),
                ZonedDateTime.of(2024, 5, 6, 7, 8, 9, 0, ZoneOffset.UTC),
                new Appointment("ada", instant));
    }

    /**
     * Offsets and zones other than UTC come back as UTC (the same instant), in both runtimes:
     * Jackson's default ADJUST_DATES_TO_CONTEXT_TIME_ZONE, which Flink Agents' mapper keeps.
     */
    static Stream<Object> zonedResults() {
        return Stream.of(
                OffsetDateTime.of(2024, 5, 6, 7, 8, 9, 5, ZoneOffset.ofHours(2)),
                ZonedDateTime.of(2024, 5, 6, 7, 8, 9, 5, ZoneId.of("Asia/Tokyo")));
    }

    @ParameterizedTest
    @MethodSource("results")
    void recordedAndReplayedHereAndInFlinkAgents(Object value) throws Exception {
        Replays replays = new Replays(value);
        assertEquals(value, replays.oursOfOurs);
        assertEquals(value, replays.oursOfTheirs);
        assertEquals(value, replays.theirsOfTheirs);
    }

    /** Needs our slots to carry Flink Agents' {@code "argsDigest": ""} (0.3.1 matches on it). */
    @ParameterizedTest
    @MethodSource({"results", "zonedResults"})
    void ourRecordedResultsReplayInFlinkAgentsAsItsOwn(Object value) throws Exception {
        Replays replays = new Replays(value);
        assertEquals(replays.theirsOfTheirs, Replays.replay(JournalRuntime.FlinkAgents::new, replays.ours, value));
    }

    @ParameterizedTest
    @MethodSource("zonedResults")
    void zonedValuesReplayAsTheSameInstantInUtcAsInFlinkAgents(Object value) throws Exception {
        Replays replays = new Replays(value);
        assertEquals(replays.theirsOfTheirs, replays.oursOfOurs);
        assertEquals(replays.theirsOfTheirs, replays.oursOfTheirs);
        assertEquals(instantOf(value), instantOf(replays.oursOfOurs));
    }

    private static Instant instantOf(Object value) {
        return value instanceof OffsetDateTime ? ((OffsetDateTime) value).toInstant() : ((ZonedDateTime) value).toInstant();
    }

    /** One call returning the value, recorded by each runtime, then replayed by each from each journal. */
    private static final class Replays {
        final byte[] ours;
        final Object oursOfOurs;
        final Object oursOfTheirs;
        final Object theirsOfTheirs;

        Replays(Object value) throws Exception {
            ours = record(JournalRuntime.Ours::new, value);
            byte[] theirs = record(JournalRuntime.FlinkAgents::new, value);
            assertArrayEquals(payload(theirs), payload(ours), "our payload bytes are Flink Agents' for " + value);
            oursOfOurs = replay(JournalRuntime.Ours::new, ours, value);
            oursOfTheirs = replay(JournalRuntime.Ours::new, theirs, value);
            theirsOfTheirs = replay(JournalRuntime.FlinkAgents::new, theirs, value);
        }

        private static byte[] record(JournalRuntime.Factory runtime, Object value) throws Exception {
            CountingCall<Object> call = call(value);
            try (JournalRuntime recorder = runtime.open(null)) {
                assertEquals(value, recorder.durableExecute(call));
                return recorder.persistedJson();
            }
        }

        static Object replay(JournalRuntime.Factory runtime, byte[] journal, Object value) throws Exception {
            CountingCall<Object> call = call(value);
            try (JournalRuntime replayer = runtime.open(journal)) {
                Object replayed = replayer.durableExecute(call);
                assertEquals(0, call.calls.get(), "a recorded call runs again");
                return replayed;
            }
        }

        /** Decoded as the value's class; a region ZoneId as ZoneId (its class is not public). */
        @SuppressWarnings("unchecked")
        private static CountingCall<Object> call(Object value) {
            Class<?> type = value instanceof ZoneId ? ZoneId.class : value.getClass();
            return CountingCall.of("tool-call:time", (Class<Object>) type, () -> value);
        }

        private static byte[] payload(byte[] journal) {
            return ActionStateSerde.deserialize(journal).getCallResults().get(0).getResultPayload();
        }
    }
}
