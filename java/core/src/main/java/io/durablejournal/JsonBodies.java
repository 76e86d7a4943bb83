package io.durablejournal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Opaque ActionState bodies between their JSON text (what a record keeps) and Jackson trees
 * (what {@link ActionState}'s {@link JsonNode} accessors take and hand out).
 *
 * <p>Both ways are exact: a tree holds every number of the text (integers of any size; a decimal
 * written as Java writes its {@code double}, such as {@code 1.5} or {@code -0.0}, as that
 * {@code double}, which Jackson's own reader makes of it too; other decimals as {@code BigDecimal}
 * with their scale, so {@code 1e400} stays finite and {@code 2.50} keeps its zero; a negative
 * zero in any other spelling as the {@code double} -0.0, the one value {@code BigDecimal} has no
 * sign for), and a tree's text is checked by the native core where it will be kept, so a
 * record built in Java is one the journal accepts.
 */
final class JsonBodies {
    /** The deepest an ActionState nests (the native core's {@code MAX_NESTING_DEPTH}, Jackson's limit). */
    static final int MAX_NESTING_DEPTH = 1000;

    /** Where a body sits in a record, which bounds how deep it may nest itself. */
    enum Place {
        /** {@code taskEvent}: one level under the record. */
        FIELD(MAX_NESTING_DEPTH - 1, "{\"taskEvent\":", "}"),
        /** An element of {@code outputEvents} or a memory-update list: two levels under it. */
        LIST_ELEMENT(MAX_NESTING_DEPTH - 2, "{\"outputEvents\":[", "]}");

        final int maxDepth;
        /** A record holding a body at this place: this text, the body, {@link #recordSuffix}. */
        final byte[] recordPrefix;
        final byte[] recordSuffix;

        Place(int maxDepth, String recordPrefix, String recordSuffix) {
            this.maxDepth = maxDepth;
            this.recordPrefix = recordPrefix.getBytes(StandardCharsets.UTF_8);
            this.recordSuffix = recordSuffix.getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * Writes trees as Jackson does, refusing (instead of recursing into a stack overflow) a tree
     * nested deeper than any record may hold.
     */
    private static final ObjectMapper WRITER = JsonMapper.builder(JsonFactory.builder()
                    .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(MAX_NESTING_DEPTH).build())
                    .build())
            .build();

    /**
     * Reads (and writes) JSON the native core checked (nesting and syntax): no Jackson length
     * limit (numbers of 1000 digits, strings of 20 MB) may refuse it. Bodies and ActionState
     * records alike ({@link ActionStateSerde}).
     */
    static final JsonFactory NATIVE_CHECKED = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(Integer.MAX_VALUE)
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxStringLength(Integer.MAX_VALUE)
                    .build())
            .build();

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private JsonBodies() {}

    /** A tree of the body; a body that does not parse (never one the native core checked) is MALFORMED_JSON. */
    static JsonNode tree(String json) {
        try (JsonParser parser = NATIVE_CHECKED.createParser(json)) {
            JsonNode tree = read(parser);
            if (parser.nextToken() != null) {
                throw new IOException("text after the body at " + parser.currentLocation());
            }
            return tree;
        } catch (IOException e) {
            throw new JournalException(JournalException.Code.MALFORMED_JSON, "a recorded JSON body cannot be read as a tree: " + e.getMessage(), e);
        }
    }

    static List<JsonNode> trees(List<String> bodies) {
        List<JsonNode> trees = new ArrayList<>(bodies.size());
        for (String body : bodies) {
            trees.add(tree(body));
        }
        return trees;
    }

    /**
     * The tree's JSON text, as Jackson writes it to bytes (a lone surrogate in a string becomes a
     * {@code \\uXXXX} escape; the char-based writer would emit it raw, which no UTF-8 can hold),
     * checked by the native core as a body at {@code place}.
     *
     * @throws JournalException MALFORMED_JSON, the journal's own refusal, when the body nests
     *     deeper than {@code place} allows or its text is not JSON (a raw-value node); a tree that
     *     Jackson cannot write at all (a POJO node) is refused with Jackson's reason
     */
    static String text(JsonNode tree, Place place) {
        byte[] body;
        try {
            body = WRITER.writeValueAsBytes(tree);
        } catch (JsonProcessingException e) {
            if (isNestingRefusal(e)) {
                throw tooDeep(place);
            }
            throw new JournalException(JournalException.Code.MALFORMED_JSON, "the JsonNode cannot be written as JSON: " + e.getOriginalMessage(), e);
        }
        check(body, place);
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * Has the native core read the body where {@code place} puts it, in a record holding nothing
     * else: the reader every record goes through refuses it, or nothing will.
     */
    private static void check(byte[] body, Place place) {
        byte[] head = place.recordPrefix;
        byte[] tail = place.recordSuffix;
        byte[] record = new byte[head.length + body.length + tail.length];
        System.arraycopy(head, 0, record, 0, head.length);
        System.arraycopy(body, 0, record, head.length, body.length);
        System.arraycopy(tail, 0, record, head.length + body.length, tail.length);
        SerdeJni.normalizeActionState(record);
    }

    /** Jackson's writer refused to nest deeper than {@link #MAX_NESTING_DEPTH} (perhaps wrapped by databind). */
    private static boolean isNestingRefusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof StreamConstraintsException) {
                return true;
            }
        }
        return false;
    }

    /** The core's refusal of a body deeper than {@code place} allows (rust/model/opaque.rs words it the same). */
    private static JournalException tooDeep(Place place) {
        return new JournalException(JournalException.Code.MALFORMED_JSON, "malformed JSON: a JSON body nests deeper than "
                + place.maxDepth + " levels (an ActionState may nest at most " + MAX_NESTING_DEPTH + ", Jackson's limit)", null);
    }

    /**
     * Builds the tree of the value at the parser's next token, without recursion (a body nests
     * up to 999 levels). Object keys repeat as Jackson's own tree reader has them: the last wins.
     */
    private static JsonNode read(JsonParser parser) throws IOException {
        Deque<ContainerNode<?>> open = new ArrayDeque<>();
        Deque<String> names = new ArrayDeque<>();
        JsonNode done = null;
        for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
            JsonNode value;
            switch (token) {
                case FIELD_NAME:
                    names.push(parser.currentName());
                    continue;
                case START_OBJECT:
                    open.push(NODES.objectNode());
                    continue;
                case START_ARRAY:
                    open.push(NODES.arrayNode());
                    continue;
                case END_OBJECT:
                case END_ARRAY:
                    value = open.pop();
                    break;
                default:
                    value = scalar(parser, token);
            }
            ContainerNode<?> parent = open.peek();
            if (parent == null) {
                done = value;
                break;
            }
            if (parent.isObject()) {
                ((ObjectNode) parent).set(names.pop(), value);
            } else {
                ((ArrayNode) parent).add(value);
            }
        }
        if (done == null) {
            throw new IOException("no JSON value");
        }
        return done;
    }

    private static JsonNode scalar(JsonParser parser, JsonToken token) throws IOException {
        switch (token) {
            case VALUE_STRING:
                return NODES.textNode(parser.getText());
            case VALUE_NUMBER_INT:
                switch (parser.getNumberType()) {
                    case INT:
                        return NODES.numberNode(parser.getIntValue());
                    case LONG:
                        return NODES.numberNode(parser.getLongValue());
                    default:
                        return NODES.numberNode(parser.getBigIntegerValue());
                }
            case VALUE_NUMBER_FLOAT:
                // Jackson's own reader makes a DoubleNode of every decimal; this one does where
                // the double is exactly the token (its text is the token's, as a DoubleNode set
                // through the API is written), so a body comes back equal to the tree it was set
                // with, and keeps every other decimal as it is (2.50, 1e400, 0.1000000000000000001).
                double asDouble = parser.getDoubleValue();
                if (Double.toString(asDouble).equals(parser.getText())) {
                    return NODES.numberNode(asDouble);
                }
                BigDecimal decimal = parser.getDecimalValue();
                if (decimal.signum() == 0 && parser.getText().startsWith("-")) {
                    return NODES.numberNode(-0.0d);
                }
                return DecimalNode.valueOf(decimal); // as it is: the factory may strip trailing zeros
            case VALUE_TRUE:
                return NODES.booleanNode(true);
            case VALUE_FALSE:
                return NODES.booleanNode(false);
            case VALUE_NULL:
                return NODES.nullNode();
            default:
                throw new IOException("unexpected " + token + " at " + parser.currentLocation());
        }
    }
}
