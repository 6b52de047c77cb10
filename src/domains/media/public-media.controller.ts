import { Body, Controller, Param, Patch, Post, UseInterceptors } from '@nestjs/common';
import {
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  getSchemaPath,
} from '@nestjs/swagger';
import { CurrentProject, PUBLIC_API_PREFIX, PublicApi } from '../../access/decorators';
import { Principal } from '../../access/principal';
import { ApiErrors } from '../../http/errors/api-errors.decorator';
import { ParseIdPipe } from '../../http/errors/parse-id.pipe';
import { Idempotent } from '../../http/idempotency/idempotent.decorator';
import type { ProjectAccess } from '../../access/project-access';
import { MediaAssetDto, MediaAssetListDto } from './media-asset.dto';
import { UpdateMediaDto } from './update-media.dto';
import { UploadByUrlDto, UploadFileFormDto } from './upload-media.dto';
import { MediaUpload, MediaUploadInterceptor } from './media-upload.interceptor';
import { MEDIA_NOT_FOUND, MediaService, type MediaUploadInput } from './media.service';

const MediaIdPipe = new ParseIdPipe(MEDIA_NOT_FOUND.code, MEDIA_NOT_FOUND.message);

@Controller(`${PUBLIC_API_PREFIX}/projects/:projectId/media`)
@ApiExtraModels(UploadByUrlDto, UploadFileFormDto)
export class PublicMediaController {
  constructor(private readonly media: MediaService) {}

  @Post()
  @PublicApi({ scope: 'media:write', permission: 'can_edit_content', rateLimit: 'upload' })
  // Above the upload's interceptor: the body is read (and hashed) before the key is checked.
  @Idempotent()
  @UseInterceptors(MediaUploadInterceptor)
  @ApiOperation({
    summary: 'Upload one file, or have the service download it from a URL',
    description:
      'Two forms, told apart by Content-Type (any other type: 415). ' +
      '`multipart/form-data`: exactly one file in the field `files`. ' +
      '`application/json`: `{ url, filename? }`; only public http(s) addresses are fetched, redirects are checked ' +
      'again (at most 5), 30 s in all. Either way: at most 52,428,800 bytes, and the type is read from the bytes ' +
      '(JPEG, PNG, GIF, WebP images; MP4, QuickTime videos).',
    requestBody: {
      required: true,
      content: {
        'multipart/form-data': { schema: { $ref: getSchemaPath(UploadFileFormDto) } },
        'application/json': { schema: { $ref: getSchemaPath(UploadByUrlDto) } },
      },
    },
  })
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiParam({ name: 'projectId', type: Number })
  @ApiCreatedResponse({ type: MediaAssetListDto, description: 'The stored MediaAsset' })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'file_required',
    'too_many_files',
    'invalid_url',
    'url_not_allowed',
    'unauthorized',
    'insufficient_scope',
    'forbidden',
    'project_not_found',
    'payload_too_large',
    'file_too_large',
    'unsupported_media_type',
    'rate_limit_exceeded',
    'download_failed',
    'download_timeout',
  )
  upload(
    @Principal() who: Principal,
    @CurrentProject() project: ProjectAccess,
    @MediaUpload() input: MediaUploadInput,
  ): Promise<MediaAssetListDto> {
    return this.media.upload(project.project.id, who.user.id, input);
  }

  @Patch(':mediaId')
  @PublicApi({ scope: 'media:write', permission: 'can_edit_content' })
  @ApiOperation({
    summary: 'Change the alt text of a stored file',
    description:
      'The body is `{ alt_text }`: a string of at most 1,500 characters, or `null` to remove it. Targets not yet delivered send the new text; what a platform already shows is not changed.',
  })
  @ApiParam({ name: 'projectId', type: Number })
  @ApiParam({ name: 'mediaId', type: Number })
  @ApiOkResponse({ type: MediaAssetDto, description: 'The MediaAsset as it now is' })
  @ApiErrors(
    'validation_failed',
    'invalid_json',
    'unauthorized',
    'insufficient_scope',
    'forbidden',
    'project_not_found',
    { pathResource: 'media_not_found' },
    'payload_too_large',
    'rate_limit_exceeded',
  )
  update(
    @CurrentProject() project: ProjectAccess,
    @Param('mediaId', MediaIdPipe) mediaId: number,
    @Body() dto: UpdateMediaDto,
  ): Promise<MediaAssetDto> {
    return this.media.setAltText(project.project.id, mediaId, dto.alt_text);
  }
}
