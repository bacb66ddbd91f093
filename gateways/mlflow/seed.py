"""Seeds a running MLflow server's AI Gateway, through its REST API, as its
UI would: one OpenAI secret, a model definition per mock (the API base in
the secret's auth_config), and the endpoint `mock-model` with the mock as its
primary and the fallback mock as its fallback, usage tracking off.

Usage: python seed.py TRACKING_URI MOCK_URL MOCK_FALLBACK_URL
"""

import sys

from mlflow.entities.gateway_endpoint import (
    FallbackConfig,
    FallbackStrategy,
    GatewayEndpointModelConfig,
    GatewayModelLinkageType,
)
from mlflow.tracking._tracking_service.utils import _get_store


def main(uri, mock_url, fallback_url):
    store = _get_store(uri)
    models = []
    for i, (name, base) in enumerate([("mock", mock_url), ("mock-fallback", fallback_url)]):
        secret = store.create_gateway_secret(
            secret_name=name,
            secret_value={"api_key": "sk-mock"},
            provider="openai",
            auth_config={"api_base": base + "/v1"},
        )
        model = store.create_gateway_model_definition(
            name=name, secret_id=secret.secret_id, provider="openai", model_name="mock-model"
        )
        models.append(
            GatewayEndpointModelConfig(
                model_definition_id=model.model_definition_id,
                linkage_type=GatewayModelLinkageType.PRIMARY if i == 0 else GatewayModelLinkageType.FALLBACK,
                weight=1.0,
                fallback_order=None if i == 0 else 1,
            )
        )
    endpoint = store.create_gateway_endpoint(
        name="mock-model",
        model_configs=models,
        fallback_config=FallbackConfig(strategy=FallbackStrategy.SEQUENTIAL, max_attempts=2),
        usage_tracking=False,
    )
    print(endpoint.endpoint_id, [m.model_definition_id for m in endpoint.model_mappings])


if __name__ == "__main__":
    main(*sys.argv[1:4])
