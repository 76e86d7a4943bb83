package io.durablejournal;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One action execution's record: its trigger, the memory updates and output events it produced,
 * and the journal of its calls. Event and memory-update bodies are kept as the JSON Flink Agents
 * wrote (with their {@code @class} type property); this library does not interpret them.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class ActionState {
    @JsonProperty("taskEvent")
    private JsonNode taskEvent;

    @JsonProperty("sensoryMemoryUpdates")
    private List<JsonNode> sensoryMemoryUpdates = new ArrayList<>();

    @JsonProperty("shortTermMemoryUpdates")
    private List<JsonNode> shortTermMemoryUpdates = new ArrayList<>();

    @JsonProperty("outputEvents")
    private List<JsonNode> outputEvents = new ArrayList<>();

    @JsonProperty("callResults")
    private List<CallResult> callResults = new ArrayList<>();

    @JsonProperty("completed")
    private boolean completed;

    /** Fields a newer writer added (e.g. {@code subagentResultEvents}): kept so a rewrite loses nothing. */
    private final Map<String, JsonNode> otherFields = new LinkedHashMap<>();

    /** An empty record of an action that has not completed. */
    public ActionState() {}

    /** A read-only view of the journal; list position is the call index. */
    public List<CallResult> getCallResults() {
        return Collections.unmodifiableList(callResults);
    }

    public boolean isCompleted() {
        return completed;
    }

    public JsonNode getTaskEvent() {
        return taskEvent;
    }

    public void setTaskEvent(JsonNode taskEvent) {
        this.taskEvent = taskEvent;
    }

    public List<JsonNode> getSensoryMemoryUpdates() {
        return Collections.unmodifiableList(sensoryMemoryUpdates);
    }

    public List<JsonNode> getShortTermMemoryUpdates() {
        return Collections.unmodifiableList(shortTermMemoryUpdates);
    }

    public List<JsonNode> getOutputEvents() {
        return Collections.unmodifiableList(outputEvents);
    }

    public void addSensoryMemoryUpdate(JsonNode update) {
        sensoryMemoryUpdates.add(Objects.requireNonNull(update, "update"));
    }

    public void addShortTermMemoryUpdate(JsonNode update) {
        shortTermMemoryUpdates.add(Objects.requireNonNull(update, "update"));
    }

    public void addOutputEvent(JsonNode event) {
        outputEvents.add(Objects.requireNonNull(event, "event"));
    }

    public void addCallResult(CallResult callResult) {
        callResults.add(Objects.requireNonNull(callResult, "callResult"));
    }

    @JsonAnyGetter
    Map<String, JsonNode> otherFields() {
        return otherFields;
    }

    @JsonAnySetter
    void otherField(String name, JsonNode value) {
        otherFields.put(name, value);
    }

    /** Marks the action completed; a completed record never carries the journal. */
    public void markCompleted() {
        completed = true;
        callResults.clear();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ActionState)) {
            return false;
        }
        ActionState other = (ActionState) o;
        return completed == other.completed
                && Objects.equals(taskEvent, other.taskEvent)
                && sensoryMemoryUpdates.equals(other.sensoryMemoryUpdates)
                && shortTermMemoryUpdates.equals(other.shortTermMemoryUpdates)
                && outputEvents.equals(other.outputEvents)
                && callResults.equals(other.callResults)
                && otherFields.equals(other.otherFields);
    }

    @Override
    public int hashCode() {
        return Objects.hash(taskEvent, sensoryMemoryUpdates, shortTermMemoryUpdates, outputEvents, callResults, completed);
    }

    @Override
    public String toString() {
        return "ActionState{callResults=" + callResults + ", completed=" + completed + "}";
    }
}
