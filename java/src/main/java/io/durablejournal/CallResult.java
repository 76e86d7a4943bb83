package io.durablejournal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Arrays;
import java.util.Objects;

/** One journal slot: the identity of a call and its recorded outcome. */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class CallResult {
    public enum Status { PENDING, SUCCEEDED, FAILED }

    private final String functionId;
    private final Status status;
    private final byte[] resultPayload;
    private final byte[] exceptionPayload;

    /** A terminal slot: FAILED iff {@code exceptionPayload} is non-null. */
    public CallResult(String functionId, byte[] resultPayload, byte[] exceptionPayload) {
        this(functionId, exceptionPayload != null ? Status.FAILED : Status.SUCCEEDED, resultPayload, exceptionPayload);
    }

    private CallResult(String functionId, Status status, byte[] resultPayload, byte[] exceptionPayload) {
        this.functionId = Objects.requireNonNull(functionId, "functionId");
        this.status = status;
        this.resultPayload = resultPayload;
        this.exceptionPayload = exceptionPayload;
    }

    /** Reads a slot as Flink Agents or this library wrote it; a legacy slot has no status. */
    @JsonCreator
    static CallResult fromJson(
            @JsonProperty("functionId") String functionId,
            @JsonProperty("status") Status status,
            @JsonProperty("resultPayload") byte[] resultPayload,
            @JsonProperty("exceptionPayload") byte[] exceptionPayload) {
        if (status == null) {
            return new CallResult(functionId, resultPayload, exceptionPayload);
        }
        return new CallResult(functionId, status, resultPayload, exceptionPayload);
    }

    public static CallResult pending(String functionId) {
        return new CallResult(functionId, Status.PENDING, null, null);
    }

    @JsonProperty("functionId")
    public String getFunctionId() {
        return functionId;
    }

    @JsonProperty("status")
    public Status getStatus() {
        return status;
    }

    @JsonProperty("resultPayload")
    public byte[] getResultPayload() {
        return resultPayload;
    }

    @JsonProperty("exceptionPayload")
    public byte[] getExceptionPayload() {
        return exceptionPayload;
    }

    @JsonIgnore
    public boolean isSuccess() {
        return status == Status.SUCCEEDED;
    }

    @JsonIgnore
    public boolean isFailure() {
        return status == Status.FAILED;
    }

    @JsonIgnore
    public boolean isPending() {
        return status == Status.PENDING;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CallResult)) {
            return false;
        }
        CallResult other = (CallResult) o;
        return functionId.equals(other.functionId)
                && status == other.status
                && Arrays.equals(resultPayload, other.resultPayload)
                && Arrays.equals(exceptionPayload, other.exceptionPayload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(functionId, status, Arrays.hashCode(resultPayload), Arrays.hashCode(exceptionPayload));
    }

    @Override
    public String toString() {
        return "CallResult{" + functionId + ", " + status
                + ", result=" + (resultPayload == null ? "null" : resultPayload.length + "B")
                + ", exception=" + (exceptionPayload == null ? "null" : exceptionPayload.length + "B") + "}";
    }
}
