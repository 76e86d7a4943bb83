package io.durablejournal;

import java.util.Arrays;
import java.util.Objects;

/**
 * One journal slot: the identity of a call and its recorded outcome. Immutable: the payloads are
 * copied when a slot is built from them and when they are read, so a change to an array given or
 * taken never reaches a record (or a {@link DurableExecutionContext} created over one).
 */
public final class CallResult {
    public enum Status { PENDING, SUCCEEDED, FAILED }

    private final String functionId;
    private final String argsDigest;
    private final Status status;
    private final byte[] resultPayload;
    private final byte[] exceptionPayload;

    /** A terminal slot: FAILED iff {@code exceptionPayload} is non-null. The payloads are copied. */
    public CallResult(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        this(Objects.requireNonNull(functionId, "functionId"), "",
                exceptionPayload != null ? Status.FAILED : Status.SUCCEEDED, copy(resultPayload), copy(exceptionPayload));
    }

    private CallResult(String functionId, String argsDigest, Status status, byte[] resultPayload, byte[] exceptionPayload) {
        this.functionId = functionId;
        this.argsDigest = argsDigest;
        this.status = status;
        this.resultPayload = resultPayload;
        this.exceptionPayload = exceptionPayload;
    }

    /**
     * A slot exactly as a record holds it (null id and digest included); for {@link
     * ActionStateSerde}, which hands over arrays nothing else holds.
     */
    static CallResult read(String functionId, String argsDigest, Status status, byte[] resultPayload, byte[] exceptionPayload) {
        return new CallResult(functionId, argsDigest, status, resultPayload, exceptionPayload);
    }

    public static CallResult pending(String functionId) {
        return new CallResult(Objects.requireNonNull(functionId, "functionId"), "", Status.PENDING, null, null);
    }

    /**
     * The call's identity. Null only in a record Flink Agents 0.3.1 wrote for a callable whose
     * {@code getId()} was null: such a slot matches no call, so a re-run cuts the journal there.
     */
    public String getFunctionId() {
        return functionId;
    }

    /**
     * Flink Agents 0.3.x's digest of the call's arguments, as the record holds it: {@code ""}
     * for slots this library wrote (what 0.3.x matches for Java callables, so it replays them),
     * possibly null or a digest in slots Flink Agents wrote. Never used to match a call.
     */
    public String getArgsDigest() {
        return argsDigest;
    }

    public Status getStatus() {
        return status;
    }

    /** A copy of the recorded result (JSON), or null. */
    public byte[] getResultPayload() {
        return copy(resultPayload);
    }

    /** A copy of the recorded failure (JSON), or null. */
    public byte[] getExceptionPayload() {
        return copy(exceptionPayload);
    }

    /** The recorded result itself, not a copy: for code of this package that only reads it. */
    byte[] recordedResult() {
        return resultPayload;
    }

    /** The recorded failure itself, not a copy: for code of this package that only reads it. */
    byte[] recordedException() {
        return exceptionPayload;
    }

    private static byte[] copy(byte[] payload) {
        return payload == null ? null : payload.clone();
    }

    public boolean isSuccess() {
        return status == Status.SUCCEEDED;
    }

    public boolean isFailure() {
        return status == Status.FAILED;
    }

    public boolean isPending() {
        return status == Status.PENDING;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CallResult)) {
            return false;
        }
        CallResult other = (CallResult) o;
        return Objects.equals(functionId, other.functionId)
                && Objects.equals(argsDigest, other.argsDigest)
                && status == other.status
                && Arrays.equals(resultPayload, other.resultPayload)
                && Arrays.equals(exceptionPayload, other.exceptionPayload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(functionId, argsDigest, status, Arrays.hashCode(resultPayload), Arrays.hashCode(exceptionPayload));
    }

    @Override
    public String toString() {
        return "CallResult{" + functionId + ", " + status
                + ("".equals(argsDigest) ? "" : ", argsDigest=" + argsDigest)
                + ", result=" + (resultPayload == null ? "null" : resultPayload.length + "B")
                + ", exception=" + (exceptionPayload == null ? "null" : exceptionPayload.length + "B") + "}";
    }
}
