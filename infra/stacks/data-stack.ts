import { RemovalPolicy, SecretValue, Stack, type StackProps } from "aws-cdk-lib";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import type { Construct } from "constructs";
import type { OspreyDeployProps } from "../config.ts";

/** Put into the database URL and model key secrets at creation; `infra:deploy` refuses to go on while it is there. */
export const UNSET_SECRET_VALUE = "unset: put the value with infra:deploy or aws secretsmanager put-secret-value";

/**
 * The secrets every other stack reads: the Neon connection string and the model API key (values
 * the operator supplies: created holding UNSET_SECRET_VALUE, filled by `infra:deploy`), and two
 * generated here, the vault key (OSPREY_VAULT_KEY: 64 hex characters, functions/vault/crypto.ts)
 * and the render secret the fetch function and the containers share (OSPREY_RENDERER_SECRET).
 * All are kept when the stack is deleted: losing the vault key loses every sealed credential.
 */
export class DataStack extends Stack {
  readonly databaseUrl: ISecret;
  readonly vaultKey: ISecret;
  readonly renderSecret: ISecret;
  readonly llmApiKey: ISecret | null;

  constructor(scope: Construct, id: string, deploy: OspreyDeployProps, props: StackProps = {}) {
    super(scope, id, { ...props, description: "Osprey: the database URL, vault key, render secret and model key" });
    const operatorSecret = (cid: string, secretName: string, description: string) => {
      const s = new Secret(this, cid, {
        secretName,
        description,
        secretStringValue: SecretValue.unsafePlainText(UNSET_SECRET_VALUE),
      });
      s.applyRemovalPolicy(RemovalPolicy.RETAIN);
      return s;
    };
    // 64 characters of 0-9a-f: 32 random bytes as hex, a format parseVaultKey accepts.
    const hexKey = (cid: string, secretName: string, description: string) => {
      const s = new Secret(this, cid, {
        secretName,
        description,
        generateSecretString: {
          passwordLength: 64,
          excludeUppercase: true,
          excludePunctuation: true,
          includeSpace: false,
          excludeCharacters: "ghijklmnopqrstuvwxyz",
          requireEachIncludedType: false,
        },
      });
      s.applyRemovalPolicy(RemovalPolicy.RETAIN);
      return s;
    };
    this.databaseUrl = operatorSecret(
      "DatabaseUrl",
      deploy.database.urlSecretName,
      "Osprey DATABASE_URL: the Neon connection string (postgres://…?sslmode=require)",
    );
    this.vaultKey = hexKey("VaultKey", `${deploy.name}/vault-key`, "Osprey OSPREY_VAULT_KEY: seals vault items and profiles");
    this.renderSecret = hexKey(
      "RenderSecret",
      `${deploy.name}/render-secret`,
      "Osprey OSPREY_RENDERER_SECRET: the fetch function's credential at the containers' render endpoint",
    );
    this.llmApiKey = deploy.model?.apiKeySecretName
      ? operatorSecret("LlmApiKey", deploy.model.apiKeySecretName, "Osprey OSPREY_LLM_API_KEY: the model provider's key")
      : null;
  }
}
