package io.durablejournal.flinkagents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.flink.agents.plan.AgentPlan;

/**
 * The digest of a Flink Agents agent plan that its retained actions carry (docs/replay.md): the
 * SHA-256 of the plan's JSON as Flink Agents writes it into the job graph (its actions, what each
 * listens to, its resources and configuration), so that a replay can tell which plan recorded an
 * action. The code inside an action's method is not part of a plan: a changed prompt keeps it.
 */
public final class PlanDigests {
    private static final String PREFIX = "flink-agents-plan:sha256:";
    /** The first 16 bytes of the SHA-256: enough to tell plans apart, short enough to read in a report. */
    private static final int DIGEST_BYTES = 16;

    private PlanDigests() {}

    /** {@code flink-agents-plan:sha256:<32 hex digits>}, or null when the plan does not write itself as JSON. */
    public static String of(AgentPlan plan) {
        byte[] json;
        try {
            json = new ObjectMapper().writeValueAsString(plan).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException | RuntimeException e) {
            // Flink Agents ships a plan as this JSON: a plan that does not write it fails the job
            // elsewhere, with Flink Agents' own message; here it only goes without a digest.
            return null;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(json);
            StringBuilder hex = new StringBuilder(PREFIX);
            for (int i = 0; i < DIGEST_BYTES; i++) {
                hex.append(Character.forDigit((digest[i] >> 4) & 0xf, 16)).append(Character.forDigit(digest[i] & 0xf, 16));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
