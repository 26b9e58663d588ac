import { Copy, DockerfileParser, From, JSONInstruction, type Instruction } from 'dockerfile-ast';

// The Dockerfile as stages, shared by the lint test (test/image/) and `npm run test:image`, which must
// know the external base images to substitute them.

/** One `FROM ... [AS name]` and the instructions after it, up to the next FROM. */
export interface Stage {
  readonly name: string | null;
  /** The FROM argument as written (an image reference or an earlier stage's name). */
  readonly base: string;
  /** True when `base` names an earlier stage rather than an image. */
  readonly fromStage: boolean;
  readonly instructions: readonly Instruction[];
}

/** Splits a Dockerfile into its stages; throws when there is no FROM or a FROM has no image. */
export function parseStages(text: string): Stage[] {
  const stages: { name: string | null; base: string; fromStage: boolean; instructions: Instruction[] }[] = [];
  for (const instruction of DockerfileParser.parse(text).getInstructions()) {
    if (instruction instanceof From) {
      const base = instruction.getImage();
      if (!base) throw new Error(`Dockerfile line ${instruction.getRange().start.line + 1}: FROM without an image`);
      const name = instruction.getBuildStage();
      const fromStage = stages.some((s) => s.name !== null && s.name.toLowerCase() === base.toLowerCase());
      stages.push({ name, base, fromStage, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.getKeyword() !== 'ARG') throw new Error(`Dockerfile: ${instruction.getKeyword()} before the first FROM`);
    } else {
      stages[stages.length - 1]!.instructions.push(instruction);
    }
  }
  if (stages.length === 0) throw new Error('Dockerfile: no FROM instruction');
  return stages;
}

/** The distinct images the stages start from (stage references left out), in order of first use. */
export function baseImages(stages: readonly Stage[]): string[] {
  return [...new Set(stages.filter((s) => !s.fromStage).map((s) => s.base))];
}

/** A stage's instructions with the given keyword (upper case). */
export function instructionsOf(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.getKeyword() === keyword);
}

/** The words of an exec-form (JSON array) instruction, or null when it is in shell form. */
export function execForm(instruction: Instruction): string[] | null {
  if (!(instruction instanceof JSONInstruction) || instruction.getOpeningBracket() === null) return null;
  return instruction.getJSONStrings().map((s) => s.getJSONValue());
}

/** A COPY's `--from` stage (or image), or null when it copies from the build context. */
export function copySourceStage(instruction: Instruction): string | null {
  return instruction instanceof Copy ? (instruction.getFromFlag()?.getValue() ?? null) : null;
}
