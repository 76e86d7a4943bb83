package io.durablejournal.flinkagents.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.durablejournal.flinkagents.EventRoutes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.context.MemoryUpdate;

/**
 * The JSON a replay compares recorded and candidate outputs by: an event as its type and
 * attributes (its id, upstream links and timestamp are per run), a memory update as the memory,
 * the path and the value, with object keys sorted, so equal values are equal texts.
 */
final class CanonicalJson {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .configure(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY, true)
            .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false)
            .build();

    private CanonicalJson() {}

    /**
     * The events an action sent: the memory observation events the operator adds to its recorded
     * outputs (Flink Agents main) are left out, the memory updates they observe being compared
     * as memory updates.
     */
    static List<String> events(List<Event> events) {
        List<String> texts = new ArrayList<>(events.size());
        for (Event event : events) {
            if (EventRoutes.isMemoryObservation(event)) {
                continue;
            }
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("type", event.getType());
            fields.put("attributes", event.getAttributes());
            texts.add(write(fields));
        }
        return texts;
    }

    /** Sensory updates first, then short-term ones, each in the order they were made. */
    static List<String> memoryUpdates(List<MemoryUpdate> sensory, List<MemoryUpdate> shortTerm) {
        List<String> texts = new ArrayList<>(sensory.size() + shortTerm.size());
        addUpdates(texts, "sensory", sensory);
        addUpdates(texts, "short-term", shortTerm);
        return texts;
    }

    private static void addUpdates(List<String> texts, String memory, List<MemoryUpdate> updates) {
        for (MemoryUpdate update : updates) {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("memory", memory);
            fields.put("path", update.getPath());
            fields.put("value", update.getValue());
            texts.add(write(fields));
        }
    }

    private static String write(Map<String, Object> fields) {
        try {
            return JSON.writeValueAsString(fields);
        } catch (JsonProcessingException e) {
            // A value Jackson cannot write (a class without properties it can read) is compared by its text.
            Map<String, Object> asText = new LinkedHashMap<>();
            fields.forEach((name, value) -> asText.put(name, String.valueOf(value)));
            try {
                return JSON.writeValueAsString(asText);
            } catch (JsonProcessingException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
    }
}
