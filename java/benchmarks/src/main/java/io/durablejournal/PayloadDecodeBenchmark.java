package io.durablejournal;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Decoding one recorded String result, the last step of every replayed call: Jackson (the
 * baseline, what Flink Agents does), the Java word-at-a-time check, the native check, and {@link
 * Payloads#decodeResult}, which picks between them by size ({@link
 * ExactScalarDecoder#NATIVE_CHECK_MIN_BYTES}). In package {@code io.durablejournal} to reach the
 * package-private decoder.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PayloadDecodeBenchmark {
    private static final ObjectMapper JACKSON = new ObjectMapper();

    /** Size of the payload (the JSON string, quotes included) in bytes. */
    @Param({"100", "1024", "4096", "10240"})
    public int payloadBytes;

    private byte[] payload;

    @Setup
    public void payload() {
        char[] body = new char[payloadBytes - 2];
        Arrays.fill(body, 'x');
        payload = ("\"" + new String(body) + "\"").getBytes(StandardCharsets.UTF_8);
    }

    @Benchmark
    public String jackson() throws Exception {
        return JACKSON.readValue(payload, String.class);
    }

    @Benchmark
    public Object javaCheck() {
        return ExactScalarDecoder.stringCheckedByWords(payload);
    }

    @Benchmark
    public Object nativeCheck() {
        return ExactScalarDecoder.stringCheckedNatively(payload);
    }

    @Benchmark
    public String decodeResult() throws Exception {
        return Payloads.decodeResult("f", payload, String.class);
    }
}
